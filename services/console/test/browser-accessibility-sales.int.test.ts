// The sales pages of part 2 (leads, billing) through axe-core in headless Chromium: light, 1280 px wide
// (support/accessibility.ts; the other pages are browser-accessibility.int.test.ts's).
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'light', colorScheme: 'light', width: 1280 }, 'sales');
