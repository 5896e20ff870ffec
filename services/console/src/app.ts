import { createHttpApp, type HttpApp, metricsRegistryOf, readinessChecks, serveOperations, startWorkers } from '@voice/kit';
import { consoleRpc, requestBodyLimitBytes } from '@voice/proto';
import type { ConsoleDeps } from './deps.js';
import { startCleanup } from './domain/cleanup.js';
import { recordConsoleActions } from './http/actions.js';
import { acceptCookies } from './http/cookies.js';
import { acceptForms, refuseRepeatedQueryParameters } from './http/forms.js';
import { answerRouterError, installPageHandling, pagesPrefix } from './http/pages.js';
import { installSessionCheck } from './http/session.js';
import { ConsoleMetrics } from './metrics.js';
import { consoleOperations } from './operations.js';
import { accountRoutes } from './routes/account.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { approvalRoutes } from './routes/approvals.js';
import { brandScoreRoutes } from './routes/brand-score.js';
import { callRoutes } from './routes/calls.js';
import { doNotCallRoutes } from './routes/do-not-call.js';
import { homeRoutes } from './routes/home.js';
import { invitationRoutes } from './routes/invitations.js';
import { invoiceRoutes } from './routes/invoices.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { leadRoutes } from './routes/leads.js';
import { liveRoutes } from './routes/live.js';
import { memberRoutes } from './routes/members.js';
import { messageRoutes } from './routes/messages.js';
import { oauthRoutes } from './routes/oauth.js';
import { oauthPageRoutes } from './routes/oauth-pages.js';
import { passwordResetRoutes } from './routes/password-reset.js';
import { preferenceRoutes } from './routes/preferences.js';
import { projectRoutes } from './routes/projects.js';
import { sequenceRoutes } from './routes/sequences.js';
import { signInRoutes } from './routes/sign-in.js';
import { staticRoutes } from './routes/static.js';
import { usageAuditRoutes } from './routes/usage-audit.js';
import { webhookRoutes } from './routes/webhooks.js';
import { workspaceRoutes } from './routes/workspaces.js';

/**
 * The console: server-rendered pages where people sign in and manage their organization, reached through
 * the gateway under /dashboard. Sessions are its own (a cookie); it never accepts an API key.
 */
export async function buildApp(deps: ConsoleDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    name: 'console',
    logger: deps.logger,
    bodyLimitBytes: requestBodyLimitBytes.console,
    trustProxyHops: deps.env.TRUST_PROXY_HOPS,
    showDependencyErrors: deps.env.NODE_ENV === 'development',
    readiness: readinessChecks(deps),
    instrument: { bus: deps.bus },
    routerErrorAnswer: answerRouterError,
  });
  const metrics = new ConsoleMetrics(metricsRegistryOf(app));
  // Every page lives under /dashboard, the prefix the gateway sends here; inside it errors and unknown
  // addresses are pages, while the probes keep kit's JSON.
  await app.register(
    async (pages) => {
      // Pages take forms only: a JSON body could carry a value of any type where a form field is text.
      pages.removeAllContentTypeParsers();
      await acceptForms(pages);
      await acceptCookies(pages);
      refuseRepeatedQueryParameters(pages);
      installPageHandling(pages);
      recordConsoleActions(pages, app);
      installSessionCheck(pages, deps);
      staticRoutes(pages);
      signInRoutes(pages, deps, metrics);
      invitationRoutes(pages, deps);
      homeRoutes(pages, deps);
      memberRoutes(pages, deps);
      apiKeyRoutes(pages, deps);
      webhookRoutes(pages, deps);
      approvalRoutes(pages, deps);
      callRoutes(pages, deps);
      usageAuditRoutes(pages, deps);
      messageRoutes(pages, deps);
      doNotCallRoutes(pages, deps);
      invoiceRoutes(pages, deps);
      projectRoutes(pages, deps);
      leadRoutes(pages, deps);
      knowledgeRoutes(pages, deps);
      brandScoreRoutes(pages, deps);
      oauthPageRoutes(pages, deps);
      preferenceRoutes(pages, deps);
      liveRoutes(pages, deps);
      sequenceRoutes(pages, deps);
      workspaceRoutes(pages, deps);
      accountRoutes(pages, deps);
      passwordResetRoutes(pages, deps);
    },
    { prefix: pagesPrefix },
  );
  // The OAuth authorization server's endpoints for clients (JSON, no session) sit outside /dashboard.
  await oauthRoutes(app, deps);
  // Its operations are NATS only (no `http`), so this registers no route beside the pages.
  serveOperations({ app, bus: deps.bus }, consoleRpc, consoleOperations(deps));
  await startWorkers(app, deps.env.WORKERS, {
    cleanup: () => startCleanup(deps, { intervalMs: deps.env.CLEANUP_INTERVAL_MS, databaseUrl: deps.env.DATABASE_URL }),
  });
  return app;
}
