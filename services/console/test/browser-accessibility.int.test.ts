// Every console page through axe-core in headless Chromium: light, 1280 px wide (support/accessibility.ts).
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'light', colorScheme: 'light', width: 1280 });
