import { type Bus, type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, type TestContext } from '@voice/kit/testing';
import type { EventEnvelope, EventType, Identity } from '@voice/proto';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { connectDeps, type TelephonyDeps } from '../../src/deps.js';
import { envSchema } from '../../src/env.js';

export interface Harness {
  ctx: TestContext;
  deps: TelephonyDeps;
  app: HttpApp;
  request(
    identity: Identity,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The service as the gateway sees it: a fresh database, Redis prefix and NATS namespace of its own. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const ctx = await createTestContext();
  const deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, SANDBOX_TIME_SCALE: '0.002', DIAL_BACKOFF_MS: '20', ...env }));
  const app = await buildApp(deps);
  return {
    ctx,
    deps,
    app,
    request(identity, method, url, payload, headers = {}) {
      return app.inject({
        method,
        url,
        headers: { ...gatewayHeaders(identity, method, url), ...headers },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    },
    async close() {
      await app.close();
      await deps.close();
      await ctx.cleanup();
    },
  };
}

/** Collects events of some types from a durable consumer of the test's own stream. */
export async function collectEvents(bus: Bus, durable: string, types: readonly EventType[]): Promise<EventEnvelope[]> {
  const events: EventEnvelope[] = [];
  await bus.consume({ durable, types }, async (event) => {
    events.push(event);
  });
  return events;
}

/** Polls until `check` returns a value, or fails after `timeoutMs` (a bound, not an assertion on speed). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
