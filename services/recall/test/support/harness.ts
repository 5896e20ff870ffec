import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, type FakeProvider, fakeProvidersEnv, type TestContext } from '@voice/kit/testing';
import { buildApp } from '../../src/app.js';
import { connectDeps, type RecallDeps } from '../../src/deps.js';
import { envSchema } from '../../src/env.js';

export interface Harness {
  ctx: TestContext;
  deps: RecallDeps;
  app: HttpApp;
  close(): Promise<void>;
}

/**
 * The recall service on its own database, Redis prefix and NATS namespace. `prepare` adjusts the
 * dependencies before the app is built on them (a page fetcher that may reach a local test site).
 */
export async function startRecall(env: Record<string, string> = {}, prepare?: (deps: RecallDeps) => void): Promise<Harness> {
  const ctx = await createTestContext();
  const deps = await connectDeps(parseEnv(envSchema, { ...ctx.env, ...env }));
  prepare?.(deps);
  const app = await buildApp(deps);
  return {
    ctx,
    deps,
    app,
    async close() {
      await app.close();
      await deps.close();
      await ctx.cleanup();
    },
  };
}

/** The stand-ins' settings (kit's), with no retries: a test's provider failure is one answer, not three. */
export function fakeProviderEnv(openai: FakeProvider, anthropic: FakeProvider): Record<string, string> {
  return { ...fakeProvidersEnv(openai, anthropic), PROVIDER_MAX_RETRIES: '0' };
}

/** A second app on the harness's database and namespace with no provider configured (and no page check). */
export async function startProviderlessApp(h: Harness): Promise<{ deps: RecallDeps; app: HttpApp; close(): Promise<void> }> {
  const deps = await connectDeps(parseEnv(envSchema, { ...h.ctx.env, BRAND_PAGE_CHECK: 'false' }));
  const app = await buildApp(deps);
  return {
    deps,
    app,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}
