// A page of calls, newest first, as the console's calls list shows them.
import type { AppDefinition } from './document.js';

export const callsApp: AppDefinition = {
  uri: 'ui://voice/calls.html',
  name: 'calls',
  title: 'Calls',
  description: 'A page of calls as a table: when, who, status, outcome, duration and cost.',
  tools: ['service_list_calls'],
  script: `
startView('voice-calls', (page) => {
  view.append(h('h1', {}, 'Calls'));
  if (page.data.length === 0) {
    view.append(muted('No calls match.'));
    return;
  }
  view.append(callsTable(page.data.length === 1 ? '1 call' : page.data.length + ' calls', page.data));
  if (page.has_more) view.append(h('p', { class: 'hint' }, 'More calls follow: ask for the next page.'));
});
`,
};
