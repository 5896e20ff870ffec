// The console in a real browser: the gateway and the console listening (the console reached through the
// gateway, as a person's browser reaches it) and headless Chromium (Debian's package, driven by
// playwright-core). The test closes it in `after`, which node's test runner runs when a test fails too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';
import { createInvitation } from '../../src/domain/invitations.js';
import type { Role } from '../../src/domain/roles.js';

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
  platform: Platform<'console'>;
  browser: Browser;
  /** The gateway's address; pages are opened under `${url}/dashboard`. */
  url: string;
  /** A new browser context (a person's own cookie jar) on the gateway's address; closed with the browser. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /**
   * A one-time invitation link on the gateway's address, made the way `npm run admin -- user invite` makes it
   * (the CLI calls the same domain function; the link's host is the configured public one, so only its path is kept).
   */
  invitationLink(orgId: string, email: string, role: Role): Promise<string>;
  /** Closes the browser (and every context), then the gateway and the console. */
  close(): Promise<void>;
}

/** Stands in for the telephony service behind the gateway, so an API key can be used: every call list is empty. */
async function emptyCallList(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"has_more":false,"next_cursor":null}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Starts the gateway (with its audit writer) with the console behind it and Chromium; close it in `after` (it closes itself if starting fails). */
export async function startConsoleInBrowser(): Promise<ConsoleInBrowser> {
  let platform: Platform<'console'> | undefined;
  let browser: Browser | undefined;
  let telephony: Awaited<ReturnType<typeof emptyCallList>> | undefined;
  // The browser first (its connections end before the servers close), then the platform.
  const close = async () => {
    await browser?.close();
    await platform?.close();
    telephony?.server.close();
  };
  try {
    telephony = await emptyCallList();
    platform = await startPlatform({ services: ['console'], gateway: { TELEPHONY_URL: telephony.url }, auditWorker: true });
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
