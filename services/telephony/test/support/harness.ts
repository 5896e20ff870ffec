import { Bus, createLogger, type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, gatewayHeaders, type TestContext, testSigningSecret } from '@voice/kit/testing';
import { type EventEnvelope, type EventType, type Identity, leadsRpc } from '@voice/proto';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp as buildLeads } from '../../../leads/src/app.js';
import { connectDeps as connectLeads } from '../../../leads/src/deps.js';
import { envSchema as leadsEnvSchema } from '../../../leads/src/env.js';
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
  /** A new lead of the identity's organization, made by the real leads service (started on first use). */
  lead(identity: Identity): Promise<string>;
  /** A workspace of the identity's organization, made by the real leads service. */
  workspace(identity: Identity): Promise<string>;
  close(): Promise<void>;
}

/** The service as the gateway sees it: a fresh database, Redis prefix and NATS namespace of its own. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const ctx = await createTestContext();
  const deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, SANDBOX_TIME_SCALE: '0.002', DIAL_BACKOFF_MS: '20', ...env }));
  const app = await buildApp(deps);
  // Calls and messages name leads, which telephony checks with the leads service over NATS.
  let leads: Promise<{ close(): Promise<void> }> | undefined;
  const startLeads = async () => {
    const leadsDeps = await connectLeads(parseEnv(leadsEnvSchema, ctx.env));
    const leadsApp = await buildLeads(leadsDeps);
    await leadsApp.ready();
    return {
      async close() {
        await leadsApp.close();
        await leadsDeps.close();
      },
    };
  };
  return {
    ctx,
    deps,
    app,
    async lead(identity) {
      leads ??= startLeads();
      await leads;
      return (await deps.bus.call(leadsRpc.createLead, identity, { name: 'Test lead' })).id;
    },
    async workspace(identity) {
      leads ??= startLeads();
      await leads;
      return (await deps.bus.call(leadsRpc.createWorkspace, identity, { name: 'Test workspace' })).id;
    },
    request(identity, method, url, payload, headers = {}) {
      return app.inject({
        method,
        url,
        headers: { ...gatewayHeaders(identity, method, url), ...headers },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    },
    async close() {
      await (await leads)?.close();
      await app.close();
      await deps.close();
      await ctx.cleanup();
    },
  };
}

/** Collects events of some types from a durable consumer of the test's own stream. */
export async function collectEvents<T extends EventType>(bus: Bus, durable: string, types: readonly T[]): Promise<EventEnvelope<T>[]> {
  const events: EventEnvelope<T>[] = [];
  await bus.consume({ durable, types }, async (event) => {
    events.push(event);
  });
  return events;
}

/** Another service's NATS connection to the harness's namespace, as the MCP, leads or console service would call. */
export function connectCaller(h: Harness, name = 'test-caller'): Promise<Bus> {
  return Bus.connect({
    url: h.ctx.natsUrl,
    name,
    namespace: h.ctx.natsNamespace,
    logger: createLogger('test', 'silent'),
    secret: testSigningSecret,
  });
}
