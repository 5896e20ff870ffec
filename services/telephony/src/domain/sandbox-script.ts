import { createHash } from 'node:crypto';
import { type CallOutcome, type CallStatus, callOutcomes, type TranscriptTurn } from '@voice/proto';

/**
 * What the sandbox carrier makes happen to one call: a SIMULATION, no telephone network involved. The
 * script is derived from the call id, so a retried dial replays the same call. Developers can force a
 * result with metadata `sandbox_status` (`completed`, `busy`, `no_answer`, `failed`) and
 * `sandbox_outcome` (any call outcome), like a payment provider's test card numbers.
 */
export interface SandboxScript {
  /** Seconds from dialing until the phone rings. */
  dialSeconds: number;
  /** Seconds of ringing before an answer or giving up. */
  ringSeconds: number;
  /** Seconds of conversation (0 if never answered). */
  talkSeconds: number;
  finalStatus: Extract<CallStatus, 'completed' | 'busy' | 'no_answer' | 'failed'>;
  outcome: CallOutcome | null;
}

const forcedStatuses = ['completed', 'busy', 'no_answer', 'failed'] as const;

// A realistic mix for outbound calls to leads: most are answered, a fair share hit voicemail.
const outcomeWeights: Array<[CallOutcome, number]> = [
  ['qualified_lead', 18],
  ['booked', 10],
  ['message_taken', 12],
  ['not_interested', 25],
  ['voicemail', 25],
  ['wrong_number', 6],
  ['spam', 4],
];

function unitFloats(seed: string, count: number): number[] {
  const digest = createHash('sha256').update(seed).digest();
  return Array.from({ length: count }, (_, index) => digest.readUInt32BE(index * 4) / 0x1_0000_0000);
}

function pickOutcome(roll: number): CallOutcome {
  const total = outcomeWeights.reduce((sum, [, weight]) => sum + weight, 0);
  let threshold = roll * total;
  for (const [outcome, weight] of outcomeWeights) {
    threshold -= weight;
    if (threshold < 0) return outcome;
  }
  return 'not_interested';
}

export function sandboxScript(callId: string, metadata: Record<string, unknown>): SandboxScript {
  const [a = 0, b = 0, c = 0, d = 0] = unitFloats(callId, 4);
  const forcedStatus = forcedStatuses.find((status) => status === metadata.sandbox_status);
  const forcedOutcome = callOutcomes.find((outcome) => outcome === metadata.sandbox_outcome);
  const finalStatus = forcedStatus ?? (a < 0.08 ? 'no_answer' : a < 0.12 ? 'busy' : 'completed');
  const dialSeconds = 1 + Math.round(b * 2);
  const ringSeconds = finalStatus === 'no_answer' ? 30 : finalStatus === 'busy' || finalStatus === 'failed' ? 1 : 3 + Math.round(c * 15);
  const outcome = finalStatus === 'completed' ? (forcedOutcome ?? pickOutcome(d)) : null;
  const talkSeconds = finalStatus !== 'completed' ? 0 : outcome === 'voicemail' ? 20 + Math.round(c * 25) : 45 + Math.round(d * 240);
  return { dialSeconds, ringSeconds, talkSeconds, finalStatus, outcome };
}

const summaries: Record<CallOutcome, string> = {
  qualified_lead: 'Caller is interested, has budget and wants a proposal this month.',
  booked: 'Appointment booked for next Tuesday at 10:00.',
  message_taken: 'Contact was unavailable; a message with a callback request was taken.',
  not_interested: 'Contact declined politely and asked for no follow-up this quarter.',
  voicemail: 'Reached voicemail; left a short message with the callback number.',
  wrong_number: 'The person who answered does not know the contact.',
  spam: 'The call was flagged as spam by the callee.',
};

const speakerNames: Record<TranscriptTurn['speaker'], string> = { agent: 'Agent', contact: 'Callee', system: 'System' };

/**
 * A transcript's text from its turns, one `Speaker: words` line each (a `system` note as it is): the text
 * `transcript` the API has always given, derived from the one record of the conversation.
 */
export function transcriptText(turns: TranscriptTurn[]): string {
  return turns.map((turn) => (turn.speaker === 'system' ? turn.text : `${speakerNames[turn.speaker]}: ${turn.text}`)).join('\n');
}

/**
 * The simulated conversation, as turns and as text, and its summary, marked as a simulation so nobody
 * mistakes them for a real call. Turns are spread over the call's talk time.
 */
export function sandboxConversation(
  outcome: CallOutcome,
  talkSeconds: number,
): { transcript: string; transcriptTurns: TranscriptTurn[]; summary: string } {
  const summary = `[sandbox simulation] ${summaries[outcome]}`;
  const transcriptTurns: TranscriptTurn[] = [
    { speaker: 'system', text: '[sandbox simulation: no real call was placed]', offset_seconds: 0 },
    { speaker: 'agent', text: 'Hello, this is the assistant calling on behalf of the team. Is now a good time?', offset_seconds: 0 },
    {
      speaker: 'contact',
      text: outcome === 'voicemail' ? '(voicemail greeting)' : 'Sure, go ahead.',
      offset_seconds: Math.round(talkSeconds * 0.2),
    },
    { speaker: 'agent', text: summaries[outcome], offset_seconds: Math.round(talkSeconds * 0.5) },
  ];
  return { transcript: transcriptText(transcriptTurns), transcriptTurns, summary };
}
