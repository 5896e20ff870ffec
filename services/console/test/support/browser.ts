// The console in a real browser: the gateway and the console listening (the console reached through the
// gateway, as a person's browser reaches it) and headless Chromium (Debian's package, driven by
// playwright-core). The test closes it in `after`, which node's test runner runs when a test fails too.
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';
import { createInvitation } from '../../src/domain/invitations.js';
import type { Role } from '../../src/domain/roles.js';
import { type StandInTelephony, startStandInTelephony } from './telephony.js';

/** Debian's `chromium` (`.ci/run` installs it when missing); `CHROMIUM_PATH` points elsewhere on other machines. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (CI runs as root in a container), and nothing that reaches out to the internet. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

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
  /** Closes the browser (and every context), then the gateway and the console. */
  close(): Promise<void>;
}

/** Starts the gateway (with its audit writer) with the webhooks service and the console behind it, and Chromium; close it in `after` (it closes itself if starting fails). */
export async function startConsoleInBrowser(): Promise<ConsoleInBrowser> {
  let platform: Platform<'console' | 'webhooks'> | undefined;
  let browser: Browser | undefined;
  let telephony: StandInTelephony | undefined;
  // The browser first (its connections end before the servers close), then the platform.
  const close = async () => {
    await browser?.close();
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
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  } catch (error) {
    await close();
    throw error;
  }
  const started = { platform, browser };
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
