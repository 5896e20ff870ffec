// A call: its status, the summary, the recording's player, the transcript turn by turn and the timeline.
import type { AppDefinition } from './document.js';

export const callApp: AppDefinition = {
  uri: 'ui://voice/call.html',
  name: 'call',
  title: 'Call',
  description: 'A call as a card: status and outcome, cost, summary, a player for the recording, the transcript and the timeline.',
  tools: ['service_get_call'],
  script: `
const speakers = { agent: 'Agent', contact: 'Contact', system: 'Note' };

/** The player for an https recording; the host opens the link when its policy keeps the player silent. */
function recording(call, app) {
  let url;
  try {
    url = call.recording_url ? new URL(call.recording_url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:') return muted('No recording.');
  const open = h('button', { type: 'button' }, 'Open the recording');
  open.addEventListener('click', () => app.openLink({ url: url.href }));
  return [h('audio', { controls: true, preload: 'none', src: url.href, 'aria-label': 'Recording of the call' }), open];
}

function transcript(call) {
  if (call.transcript_turns && call.transcript_turns.length > 0) {
    return items(call.transcript_turns, (turn) => ({
      kind: turn.speaker,
      head: [speakers[turn.speaker] || turn.speaker, turn.offset_seconds === null ? null : h('span', { class: 'muted' }, duration(Math.round(turn.offset_seconds)))],
      body: turn.text,
    }));
  }
  if (call.transcript) return h('p', { class: 'item-body' }, call.transcript);
  return muted(call.status === 'in_progress' ? 'The transcript comes when the call ends.' : 'No transcript.');
}

startView('voice-call', (call, app) => {
  view.append(
    h('h1', {}, call.direction === 'outbound' ? 'Call to ' + call.to : 'Call from ' + call.from),
    h('p', { class: 'badges' }, badge(call.status), call.outcome ? badge(call.outcome) : null, call.livemode === false ? testBadge() : null),
    details('The call', [
      ['Call', code(call.id)],
      ['Direction', words(call.direction)],
      ['From', call.from],
      ['To', call.to],
      ['Lead', code(call.lead_id)],
      ['Created', dateTime(call.created_at)],
      ['Answered', dateTime(call.started_at)],
      ['Ended', dateTime(call.ended_at)],
      ['Duration', duration(call.duration_seconds)],
      ['Cost', call.cost ? money(call.cost.amount, call.cost.currency) + (call.livemode === false ? ' (simulated)' : '') : null],
      ['End reason', call.end_reason ? words(call.end_reason) : null],
    ]),
    section('Summary', call.summary ? h('p', {}, call.summary) : muted('No summary.')),
    section('Recording', recording(call, app)),
    section('Transcript', transcript(call)),
    section(
      'Timeline',
      h('ol', { class: 'timeline' }, call.timeline.map((change) => h('li', {}, badge(change.status), dateTime(change.at)))),
    ),
  );
});
`,
};
