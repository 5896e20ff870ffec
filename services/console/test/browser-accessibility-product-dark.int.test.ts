// The product pages of part 2 (sequences, workspaces) through axe-core in headless Chromium: dark, 1280 px wide
// (support/accessibility.ts; the other pages are browser-accessibility-dark.int.test.ts's).
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'dark', colorScheme: 'dark', width: 1280 }, 'product');
