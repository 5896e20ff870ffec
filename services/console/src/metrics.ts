import { Counter, type Registry } from 'prom-client';
import type { SignInResult } from './domain/sign-in.js';

/** How a sign-in ended: signed in, wrong e-mail address or password, or refused by the throttle before any check. */
export type SignInOutcome = SignInResult['outcome'];

/**
 * The console's metrics: sign-ins by outcome (`console_sign_in_attempts_total{outcome}`), so failures and
 * throttles (guessing, or a person locked out) show as rates, never as addresses or accounts.
 */
export class ConsoleMetrics {
  private readonly signIns: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.signIns = new Counter({
      name: 'console_sign_in_attempts_total',
      help: 'Sign-in form submissions by outcome: signed_in, wrong_credentials (unknown address or wrong password), throttled (too many attempts from the address or for the account)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['signed_in', 'wrong_credentials', 'throttled'] as const) this.signIns.inc({ outcome }, 0);
  }

  signIn(outcome: SignInOutcome): void {
    this.signIns.inc({ outcome });
  }
}
