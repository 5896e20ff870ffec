// Every console page through axe-core in headless Chromium: dark (prefers-color-scheme), 1280 px wide.
import { checkEveryPage } from './support/accessibility.js';

checkEveryPage({ name: 'dark', colorScheme: 'dark', width: 1280 });
