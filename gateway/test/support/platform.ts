// The platform for a test: the services it asks for (all six unless told) listening on 127.0.0.1 (one test
// context, so they share the database, the Redis prefix and the NATS namespace), and the gateway in front of
// them, listening too. Tests talk to the gateway with fetch, as an API client does, or to a service's app.
import type { AddressInfo } from 'node:net';
import { type HttpApp, parseEnv } from '@voice/kit';
import { createTestContext, freePort, type TestContext } from '@voice/kit/testing';
import { buildApp as buildConsole } from '../../../services/console/src/app.js';
import { type ConsoleDeps, connectDeps as connectConsole } from '../../../services/console/src/deps.js';
import { envSchema as consoleEnvSchema } from '../../../services/console/src/env.js';
import { buildApp as buildLeads } from '../../../services/leads/src/app.js';
import { connectDeps as connectLeads, type LeadsDeps } from '../../../services/leads/src/deps.js';
import { envSchema as leadsEnvSchema } from '../../../services/leads/src/env.js';
import { buildApp as buildMcp } from '../../../services/mcp/src/app.js';
import { connectDeps as connectMcp, type McpDeps } from '../../../services/mcp/src/deps.js';
import { envSchema as mcpEnvSchema } from '../../../services/mcp/src/env.js';
import { buildApp as buildRecall } from '../../../services/recall/src/app.js';
import { connectDeps as connectRecall, type RecallDeps } from '../../../services/recall/src/deps.js';
import { envSchema as recallEnvSchema } from '../../../services/recall/src/env.js';
import { buildApp as buildTelephony } from '../../../services/telephony/src/app.js';
import { connectDeps as connectTelephony, type TelephonyDeps } from '../../../services/telephony/src/deps.js';
import { envSchema as telephonyEnvSchema } from '../../../services/telephony/src/env.js';
import { buildApp as buildWebhooks } from '../../../services/webhooks/src/app.js';
import { connectDeps as connectWebhooks, type WebhooksDeps } from '../../../services/webhooks/src/deps.js';
import { envSchema as webhooksEnvSchema } from '../../../services/webhooks/src/env.js';
import { createOrgWithKey, startGateway, type TestGateway } from './gateway.js';

export interface Running<D> {
  app: HttpApp;
  deps: D;
  url: string;
}

interface ServiceDeps {
  telephony: TelephonyDeps;
  leads: LeadsDeps;
  recall: RecallDeps;
  mcp: McpDeps;
  webhooks: WebhooksDeps;
  console: ConsoleDeps;
}

export type ServiceName = keyof ServiceDeps;

/** Every service, in the order they start (and the reverse of the order they stop). */
export const serviceNames: readonly ServiceName[] = ['telephony', 'leads', 'recall', 'mcp', 'webhooks', 'console'];

export type Platform<S extends ServiceName = ServiceName> = {
  ctx: TestContext;
  gateway: TestGateway;
  /** The gateway's listening address, e.g. http://127.0.0.1:40123, which is also the gateway's and console's PUBLIC_BASE_URL. */
  url: string;
  /** An organization with a key (read-write on a Starter or better plan unless told otherwise). */
  org(options?: Parameters<typeof createOrgWithKey>[1]): Promise<{ orgId: string; keyId: string; key: string }>;
  close(): Promise<void>;
} & { [K in S]: Running<ServiceDeps[K]> };

export interface PlatformEnv {
  telephony?: Record<string, string>;
  leads?: Record<string, string>;
  recall?: Record<string, string>;
  mcp?: Record<string, string>;
  webhooks?: Record<string, string>;
  console?: Record<string, string>;
  gateway?: Record<string, string>;
  /** Run the gateway's audit writer (JetStream consumer). Off by default: most tests do not read the log. */
  auditWorker?: boolean;
}

export interface PlatformOptions<S extends ServiceName> extends PlatformEnv {
  /** The services to start; all six unless told. */
  services?: readonly S[];
}

type Closers = Array<() => Promise<unknown>>;

/** Test settings of each service (time scaled down, local webhook targets allowed), under the caller's own. */
const starters: { [K in ServiceName]: (env: Record<string, string>, closers: Closers) => Promise<Omit<Running<ServiceDeps[K]>, 'url'>> } = {
  telephony: (env, closers) =>
    start(
      connectTelephony(parseEnv(telephonyEnvSchema, { SANDBOX_TIME_SCALE: '0.002', DIAL_BACKOFF_MS: '50', ...env })),
      buildTelephony,
      closers,
    ),
  leads: (env, closers) => start(connectLeads(parseEnv(leadsEnvSchema, { SEQUENCE_DELAY_SCALE: '0.001', ...env })), buildLeads, closers),
  recall: (env, closers) => start(connectRecall(parseEnv(recallEnvSchema, { BRAND_PAGE_CHECK: 'false', ...env })), buildRecall, closers),
  mcp: (env, closers) => start(connectMcp(parseEnv(mcpEnvSchema, env)), buildMcp, closers),
  webhooks: (env, closers) =>
    start(
      connectWebhooks(
        parseEnv(webhooksEnvSchema, { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '50,100', ...env }),
      ),
      buildWebhooks,
      closers,
    ),
  console: (env, closers) => start(connectConsole(parseEnv(consoleEnvSchema, env)), buildConsole, closers),
};

async function start<D extends { close(): Promise<unknown> }>(
  connecting: Promise<D>,
  build: (deps: D) => Promise<HttpApp>,
  closers: Closers,
): Promise<{ app: HttpApp; deps: D }> {
  const deps = await connecting;
  closers.push(() => deps.close());
  const app = await build(deps);
  closers.push(() => app.close());
  return { app, deps };
}

async function listen(app: HttpApp, port = 0): Promise<string> {
  await app.listen({ host: '127.0.0.1', port });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** Starts the services (all six unless `services` names some) and the gateway pointed at them. Close it in `after`. */
export async function startPlatform<S extends ServiceName = ServiceName>(options: PlatformOptions<S> = {}): Promise<Platform<S>> {
  const ctx = await createTestContext();
  const closers: Closers = [];
  const close = async () => {
    // Reverse order: the gateway first, then the services, then their connections, then the context.
    for (const closer of closers.reverse()) await closer().catch(() => {});
    closers.length = 0;
    await ctx.cleanup();
  };
  try {
    // The gateway's address is chosen first: it is the platform's public address (PUBLIC_BASE_URL), which the
    // gateway's OAuth metadata and the console's authorization server name, and which an OAuth client checks
    // against the URL it connected to.
    const gatewayPort = await freePort();
    const publicBaseUrl = { PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}` };
    const names = serviceNames.filter((name) => (options.services ?? serviceNames).includes(name as S));
    const running: Partial<Record<ServiceName, Running<unknown>>> = {};
    for (const name of names) {
      // The console's pages and the mcp service's links to them (an approval's page) are at the public address.
      const own = name === 'console' || name === 'mcp' ? publicBaseUrl : {};
      const started = await starters[name]({ ...ctx.env, ...own, ...options[name] }, closers);
      running[name] = { ...started, url: '' };
    }
    const urls = await Promise.all(names.map((name) => listen((running[name] as Running<unknown>).app)));
    const upstreams: Record<string, string> = {};
    names.forEach((name, index) => {
      (running[name] as Running<unknown>).url = urls[index] as string;
      upstreams[`${name.toUpperCase()}_URL`] = urls[index] as string;
    });
    const gateway = await startGateway(
      ctx,
      { ...upstreams, ...publicBaseUrl, ...options.gateway },
      { auditWorker: options.auditWorker ?? false },
    );
    closers.push(() => {
      // Keep-alive connections from fetch would otherwise hold close() until they time out.
      gateway.app.server.closeAllConnections();
      return gateway.close();
    });
    const url = await listen(gateway.app, gatewayPort);
    return {
      ...running,
      ctx,
      gateway,
      url,
      org: (orgOptions = {}) => createOrgWithKey(gateway, { plan: 'pro', quota: 100_000, ...orgOptions }),
      close,
    } as Platform<S>;
  } catch (error) {
    await close();
    throw error;
  }
}
