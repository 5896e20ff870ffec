import type { HttpApp } from '@voice/kit';
import type { GatewayDeps } from '../deps.js';
import { buildOpenApiDocument } from '../routes/openapi.js';
import { describeDisagreement, type ScopeDisagreement } from './scope-agreement.js';

/**
 * Checks, from start and then every `recheckMs`, that the services' declared scopes agree with the
 * gateway's rule. A disagreement is logged as an error naming the route and fails readiness rather than
 * stopping the process: the gateway would refuse keys a service accepts (or pass keys it refuses), so a
 * new replica must not take traffic while replicas that agree keep serving, and the route stays named
 * in the log and in /readyz instead of a crash loop. Services that are not up yet are only missing from
 * the comparison; they are compared on the next round and never keep the gateway from starting.
 */
export class ScopeAgreement {
  private disagreements: ScopeDisagreement[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly env: GatewayDeps['env'],
    private readonly logger: GatewayDeps['logger'],
    private readonly recheckMs = 30_000,
  ) {}

  /** Compares once: the merge of the OpenAPI document is where the declared scopes are read. */
  async verify(app: HttpApp): Promise<ScopeDisagreement[]> {
    const { disagreements } = await buildOpenApiDocument(app, this.env);
    for (const disagreement of disagreements) {
      this.logger.error({ ...disagreement }, `scope disagreement: ${describeDisagreement(disagreement)}`);
    }
    this.disagreements = disagreements;
    return disagreements;
  }

  start(app: HttpApp): void {
    const round = () => {
      this.verify(app)
        .catch((error: Error) => this.logger.warn({ err: error }, 'scope agreement check failed'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(round, this.recheckMs).unref();
        });
    };
    this.timer = setTimeout(round, 0).unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The readiness check: throws while any route disagrees. */
  readiness = async (): Promise<void> => {
    if (this.disagreements.length > 0) throw new Error(this.disagreements.map(describeDisagreement).join('; '));
  };
}
