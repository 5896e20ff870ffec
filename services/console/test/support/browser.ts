// The console in a real browser: the gateway and the console listening (the console reached through the
// gateway, as a person's browser reaches it) and headless Chromium (Debian's package, driven by
// playwright-core). The test closes it in `after`, which node's test runner runs when a test fails too.
import { type Platform, startPlatform } from '@voice/gateway/testing';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { createInvitation } from '../../src/domain/invitations.js';
import type { Role } from '../../src/domain/roles.js';
import { type SharedChromium, sharedChromium } from './chromium.js';
import { type StandInTelephony, startStandInTelephony } from './telephony.js';

export { chromiumArgs, chromiumPath } from './chromium.js';

export interface ConsoleInBrowser {
  platform: Platform<'console' | 'webhooks'>;
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

/** Starts the gateway (with its audit writer) with the webhooks service and the console behind it, and Chromium; close it in `after` (it closes itself if starting fails). */
export async function startConsoleInBrowser(): Promise<ConsoleInBrowser> {
  let platform: Platform<'console' | 'webhooks'> | undefined;
  let chromium: SharedChromium | undefined;
  let telephony: StandInTelephony | undefined;
  // The browser first (its connections end before the servers close), then the platform.
  const close = async () => {
    await chromium?.release();
    await platform?.close();
    telephony?.close();
  };
  try {
    telephony = await startStandInTelephony();
    // The webhooks service too, so its pages are real ones (the accessibility check opens them).
    platform = await startPlatform({
      services: ['webhooks', 'console'],
      gateway: { TELEPHONY_URL: telephony.url },
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
