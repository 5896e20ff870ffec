// The sales pages of part 2 (leads, billing) through axe-core in headless Chromium: light, 375 px wide, nothing scrolls sideways
// (support/accessibility.ts; the other pages are browser-accessibility-phone.int.test.ts's).
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'light-375', colorScheme: 'light', width: 375 }, 'sales');
