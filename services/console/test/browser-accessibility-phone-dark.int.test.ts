// Every console page through axe-core in headless Chromium: dark, 375 px wide, and nothing scrolls sideways.
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'dark-375', colorScheme: 'dark', width: 375 });
