import {
  type BackgroundWork,
  createHttpApp,
  everyInterval,
  type HttpApp,
  metricsRegistryOf,
  readinessChecks,
  serveOperations,
  serviceAuthPlugin,
  startWorkers,
} from '@voice/kit';
import { mcpRpc, requestBodyLimitBytes } from '@voice/proto';
import type { McpDeps } from './deps.js';
import { sweepExpired } from './domain/approvals.js';
import { ToolCatalog } from './mcp/catalog.js';
import { observeApprovals } from './metrics.js';
import { mcpOperations } from './operations.js';
import { retiredChannelRoutes } from './routes/approvals.js';
import { mcpRoutes } from './routes/mcp.js';
import { slackHookRoutes } from './routes/slack-hooks.js';
import { telegramHookRoutes } from './routes/telegram-hooks.js';

/** The mcp service: the MCP tools of `mcp/catalog.ts` over stateless streamable HTTP, and tap-to-approve for destructive ones. */
export async function buildApp(deps: McpDeps, catalog: ToolCatalog = new ToolCatalog()): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'mcp',
    logger: deps.logger,
    bodyLimitBytes: requestBodyLimitBytes.mcp,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus, outbox: { relay: deps.outbox, database: deps.prisma } },
  });
  await app.register(serviceAuthPlugin, { secret: deps.env.INTERNAL_SIGNING_SECRET });
  observeApprovals(metricsRegistryOf(app), deps.prisma);
  mcpRoutes(app, deps, catalog);
  serveOperations({ app, bus: deps.bus }, mcpRpc, mcpOperations(deps));
  retiredChannelRoutes(app);
  telegramHookRoutes(app, deps);
  await slackHookRoutes(app, deps);

  await startWorkers(app, deps.env.WORKERS, {
    outbox: () => deps.outbox.start(),
    'approval-sweep': () => startApprovalSweep(deps),
  });
  return app;
}

/** Marks pending approvals past their expiry `expired` every APPROVAL_SWEEP_INTERVAL_MS, on one replica at a time. */
function startApprovalSweep(deps: McpDeps): BackgroundWork {
  return everyInterval({
    name: 'mcp.approval-sweep',
    everyMs: deps.env.APPROVAL_SWEEP_INTERVAL_MS,
    scope: 'cluster',
    databaseUrl: deps.env.DATABASE_URL,
    logger: deps.logger,
    run: () => sweepExpired(deps),
  });
}
