import { parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, type TestContext, testIdentity } from '@voice/kit/testing';
import type { EventEnvelope, Identity } from '@voice/proto';
import { buildApp } from '../../src/app.js';
import { connectDeps, type LeadsDeps } from '../../src/deps.js';
import { envSchema } from '../../src/env.js';

/** Response bodies are read field by field in assertions; their schemas are checked by the app's serializer. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = any;

export interface Harness {
  ctx: TestContext;
  deps: LeadsDeps;
  app: Awaited<ReturnType<typeof buildApp>>;
  /** A signed request as the gateway would forward it. */
  request(
    identity: Identity,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ statusCode: number; json: () => Json; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * The leads service on its own database, Redis prefix and NATS namespace. Sequence delays run at a
 * thousandth of their length (the SEQUENCE_DELAY_SCALE setting), so a step of 1 s waits 1 ms.
 */
export async function startLeads(extraEnv: Record<string, string> = {}): Promise<Harness> {
  const ctx = await createTestContext();
  const deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, SEQUENCE_DELAY_SCALE: '0.001', ...extraEnv }));
  const app = await buildApp(deps);
  return {
    ctx,
    deps,
    app,
    async request(identity, method, url, payload, headers = {}) {
      const response = await app.inject({
        method,
        url,
        headers: { ...gatewayHeaders(identity, method, url), ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { statusCode: response.statusCode, json: () => response.json(), headers: response.headers };
    },
    async close() {
      await app.close();
      await deps.close();
      await ctx.cleanup();
    },
  };
}

export { testIdentity };

/** Collects every event published in the harness's NATS namespace, for asserting what was announced. */
export function collectEvents(harness: Harness): EventEnvelope[] {
  const events: EventEnvelope[] = [];
  harness.deps.bus.connection.subscribe(harness.deps.bus.subject('evt.>'), {
    callback: (error, message) => {
      if (!error) events.push(message.json<EventEnvelope>());
    },
  });
  return events;
}
