// Calls, messages and do-not-call: each page through axe-core in headless Chromium in every look
// (support/accessibility.ts).
import { describe } from 'node:test';
import { checkEveryPage } from './support/accessibility.js';

describe('the phone pages in a browser, light and dark, 1280 and 375 px wide', () => checkEveryPage('phone'));
