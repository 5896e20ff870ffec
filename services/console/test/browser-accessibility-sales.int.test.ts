// Leads, invoices and projects: each page through axe-core in headless Chromium in every look
// (support/accessibility.ts).
import { describe } from 'node:test';
import { checkEveryPage } from './support/accessibility.js';

describe('the sales pages in a browser, light and dark, 1280 and 375 px wide', () => checkEveryPage('sales'));
