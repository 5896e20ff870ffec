// Signing in, the overview, members, API keys, usage, the audit log, webhooks, settings and the account: each
// page through axe-core in headless Chromium in every look (support/accessibility.ts).
import { describe } from 'node:test';
import { checkEveryPage } from './support/accessibility.js';

describe('the core pages in a browser, light and dark, 1280 and 375 px wide', () => checkEveryPage('core'));
