// Every console page through axe-core in headless Chromium: light, 375 px wide, and nothing scrolls sideways.
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'light-375', colorScheme: 'light', width: 375 });
