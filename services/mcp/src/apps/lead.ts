// A lead: who, where it stands, its notes (newest first, as the tool gives them), sequences and recent calls.
import type { AppDefinition } from './document.js';

export const leadApp: AppDefinition = {
  uri: 'ui://voice/lead.html',
  name: 'lead',
  title: 'Lead',
  description: 'A lead as a card: contact details, status, next action, its notes, sequences and recent calls.',
  tools: ['service_get_lead'],
  script: `
function notes(lead) {
  if (lead.notes.length === 0) return muted('No notes yet.');
  return items(lead.notes, (note) => ({ head: [note.author || 'Unknown author', h('span', { class: 'muted' }, dateTime(note.created_at))], body: note.body }));
}

function enrollments(lead) {
  if (lead.enrollments.length === 0) return muted('In no sequence.');
  return items(lead.enrollments, (enrollment) => ({
    head: [code(enrollment.sequence_id), badge(enrollment.status)],
    body: 'Step ' + enrollment.current_step + ' of ' + enrollment.steps.length,
  }));
}

startView('voice-lead', (lead) => {
  const custom = Object.entries(lead.custom_fields || {}).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
  view.append(
    h('h1', {}, lead.name || lead.company || lead.phone || lead.email || lead.id),
    h('p', { class: 'badges' }, badge(lead.status), lead.tags.map((tag) => badge('tag', tag))),
    details('The lead', [
      ['Lead', code(lead.id)],
      ['Phone', lead.phone],
      ['Email', lead.email],
      ['Company', lead.company],
      ['Source', words(lead.source)],
      ['Owner', lead.owner],
      ['Next action', lead.next_action ? [lead.next_action, lead.next_action_at ? [' (', dateTime(lead.next_action_at), ')'] : null] : null],
      ['Last contacted', dateTime(lead.last_contacted_at)],
      ['Qualified', dateTime(lead.qualified_at)],
      ['Created', dateTime(lead.created_at)],
    ]),
    custom.length > 0 ? section('Custom fields', details('Custom fields', custom)) : null,
    section('Notes', notes(lead)),
    section('Sequences', enrollments(lead)),
    lead.recent_calls && lead.recent_calls.length > 0 ? section('Recent calls', callsTable('Recent calls', lead.recent_calls)) : null,
  );
});
`,
};
