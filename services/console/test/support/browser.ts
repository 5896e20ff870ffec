// The console in a real browser: the gateway and the console listening (the console reached through the
// gateway, as a person's browser reaches it) and headless Chromium (Debian's package, driven by
// playwright-core). The test closes it in `after`, which node's test runner runs when a test fails too.
import { type Platform, type ServiceName, startPlatform } from '@voice/gateway/testing';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { createInvitation } from '../../src/domain/invitations.js';
import type { Role } from '../../src/domain/roles.js';
import { type SharedChromium, sharedChromium } from './chromium.js';
import { type FakeRecallProviders, startFakeRecallProviders } from './recall.js';

export { chromiumArgs, chromiumPath } from './chromium.js';

/** A console in a browser, with the services `S` behind it (the journey steps need only the console and webhooks). */
export interface ConsoleInBrowser<S extends ServiceName = BrowserServices> {
  platform: Platform<S>;
  browser: Browser;
  /** The gateway's address; pages are opened under `${url}/dashboard`. */
  url: string;
  /** A new browser context (a person's own cookie jar) on the gateway's address; closed with the browser. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /**
   * A one-time invitation link on the gateway's address, made the way `npm run -s admin -- user invite` makes it
   * (the CLI calls the same domain function; the link's host is the configured public one, so only its path is kept).
   */
  invitationLink(orgId: string, email: string, role: Role): Promise<string>;
  /** Releases the browser (closing it if no one else in the process uses it), then closes the gateway and the console. */
  close(): Promise<void>;
}

/** The services behind the console in a browser test: every one whose data a console page shows (mcp: the approvals count of every page). */
export type BrowserServices = 'telephony' | 'leads' | 'recall' | 'mcp' | 'webhooks' | 'console';

/**
 * Starts the gateway (with its audit writer) with telephony (the sandbox carrier), leads, recall (with fake model
 * providers), mcp, webhooks and the console behind it, and Chromium; close it in `after` (it closes itself if starting fails). `telephony` adds
 * to the telephony service's environment, e.g. a slower `SANDBOX_TIME_SCALE` to watch a call ring.
 */
export async function startConsoleInBrowser(
  options: { telephony?: Record<string, string>; console?: Record<string, string> } = {},
): Promise<ConsoleInBrowser<BrowserServices>> {
  let platform: Platform<BrowserServices> | undefined;
  let chromium: SharedChromium | undefined;
  // Recall's model providers: local servers speaking OpenAI's and Anthropic's protocols (support/recall.ts).
  let providers: FakeRecallProviders | undefined;
  // The browser first (its connections end before the servers close), then the platform.
  const close = async () => {
    await chromium?.release();
    await platform?.close();
    await providers?.close();
  };
  try {
    providers = await startFakeRecallProviders();
    platform = await startPlatform({
      services: ['telephony', 'leads', 'recall', 'mcp', 'webhooks', 'console'],
      recall: providers.env,
      ...(options.telephony ? { telephony: options.telephony } : {}),
      ...(options.console ? { console: options.console } : {}),
      auditWorker: true,
    });
    chromium = await sharedChromium();
  } catch (error) {
    await close();
    throw error;
  }
  const started = { platform, browser: chromium.browser };
  return {
    ...started,
    close,
    url: platform.url,
    newContext: (options = {}) => started.browser.newContext({ baseURL: started.platform.url, ...options }),
    async invitationLink(orgId, email, role) {
      const invitation = await createInvitation(started.platform.console.deps, { orgId, email, role, invitedBy: null });
      return new URL(new URL(invitation.link).pathname, started.platform.url).toString();
    },
  };
}
