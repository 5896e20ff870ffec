// Headless Chromium for the browser tests: Debian's package, driven by playwright-core.
import { type Browser, chromium } from 'playwright-core';

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

export interface SharedChromium {
  browser: Browser;
  /** This user is done with it; the last one to release it closes it. Once per user, however often called. */
  release(): Promise<void>;
}

let launched: Promise<Browser> | undefined;
let users = 0;

/**
 * The one Chromium of this test process, launched by its first user and closed when the last releases it.
 * A launch costs seconds of CPU on a loaded machine, so tests and harnesses share it and keep apart by
 * contexts (`browser.newContext()`: each its own cookies and storage) rather than by browsers.
 */
export async function sharedChromium(): Promise<SharedChromium> {
  users += 1;
  launched ??= chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  let browser: Browser;
  try {
    browser = await launched;
  } catch (error) {
    users -= 1;
    launched = undefined;
    throw error;
  }
  let released = false;
  return {
    browser,
    async release() {
      if (released) return;
      released = true;
      users -= 1;
      if (users > 0) return;
      launched = undefined;
      await browser.close();
    },
  };
}
