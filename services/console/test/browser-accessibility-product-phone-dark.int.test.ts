// The product pages of part 2 (sequences, workspaces) through axe-core in headless Chromium: dark, 375 px wide, nothing scrolls sideways
// (support/accessibility.ts; the other pages are browser-accessibility-phone-dark.int.test.ts's).
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'dark-375', colorScheme: 'dark', width: 375 }, 'product');
