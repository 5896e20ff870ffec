import { createHash } from 'node:crypto';
import {
  type CallDirection,
  type CallOutcome,
  type CallStatus,
  callOutcomes,
  isTestOrg,
  type TestPhoneNumber,
  type TranscriptTurn,
  testPhoneNumbers,
} from '@voice/proto';

/**
 * What the sandbox carrier makes happen to one call: a SIMULATION, no telephone network involved. The
 * script is derived from the call itself (its id, direction, numbers and metadata), so a retried dial replays
 * the same call and every step, scheduled or forced by a test helper, reads the same script. A call to one of
 * test mode's magic numbers (`testPhoneNumbers`) plays out as that number says; otherwise developers can
 * force a result with metadata `sandbox_status` (`completed`, `busy`, `no_answer`, `failed`) and
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

/** Who is on the line besides our agent, for a script: outbound (the default) or inbound, and their number. */
export interface ScriptParties {
  direction?: CallDirection;
  /** The other party: who is called (outbound) or who calls (inbound). */
  contact?: string;
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

/** The magic number's script, if `number` is one of test mode's (proto `testPhoneNumbers`). */
export function magicNumber(number: string): (typeof testPhoneNumbers)[TestPhoneNumber] | undefined {
  return Object.hasOwn(testPhoneNumbers, number) ? testPhoneNumbers[number as TestPhoneNumber] : undefined;
}

const talkSecondsOf = (outcome: CallOutcome, roll: number) =>
  outcome === 'voicemail' ? 20 + Math.round(roll * 25) : 45 + Math.round(roll * 240);

/**
 * The script of a call. Outbound: a magic number's status and outcome, else the metadata's forced ones, else
 * the realistic mix. Inbound calls reach our voice agent, which answers them: always completed, with the
 * forced outcome, else a magic caller's (when that number's call completes), else the mix.
 */
export function sandboxScript(callId: string, metadata: Record<string, unknown>, parties: ScriptParties = {}): SandboxScript {
  const [a = 0, b = 0, c = 0, d = 0] = unitFloats(callId, 4);
  const magic = parties.contact === undefined ? undefined : magicNumber(parties.contact);
  const forcedStatus = forcedStatuses.find((status) => status === metadata.sandbox_status);
  const forcedOutcome = callOutcomes.find((outcome) => outcome === metadata.sandbox_outcome);
  let finalStatus: SandboxScript['finalStatus'];
  let chosenOutcome: CallOutcome | undefined;
  if (parties.direction === 'inbound') {
    finalStatus = 'completed';
    chosenOutcome = forcedOutcome ?? (magic?.status === 'completed' ? magic.outcome : undefined);
  } else if (magic) {
    finalStatus = magic.status;
    chosenOutcome = magic.outcome ?? undefined;
  } else {
    finalStatus = forcedStatus ?? (a < 0.08 ? 'no_answer' : a < 0.12 ? 'busy' : 'completed');
    chosenOutcome = forcedOutcome;
  }
  const dialSeconds = 1 + Math.round(b * 2);
  const ringSeconds = finalStatus === 'no_answer' ? 30 : finalStatus === 'busy' || finalStatus === 'failed' ? 1 : 3 + Math.round(c * 15);
  const outcome = finalStatus === 'completed' ? (chosenOutcome ?? pickOutcome(d)) : null;
  const talkSeconds = outcome === null ? 0 : talkSecondsOf(outcome, outcome === 'voicemail' ? c : d);
  return { dialSeconds, ringSeconds, talkSeconds, finalStatus, outcome };
}

/**
 * How a call ends once answered: its script's outcome and talk time, or, for a call answered although its
 * script said otherwise (a test helper moved it) or given another outcome, that outcome (else the mix's pick
 * for this call) with a talk time to match.
 */
export function answeredPlay(callId: string, script: SandboxScript, outcome?: CallOutcome): { outcome: CallOutcome; talkSeconds: number } {
  if (script.outcome && (outcome === undefined || outcome === script.outcome))
    return { outcome: script.outcome, talkSeconds: script.talkSeconds };
  const [, , c = 0, d = 0] = unitFloats(callId, 4);
  const chosen = outcome ?? pickOutcome(d);
  return { outcome: chosen, talkSeconds: talkSecondsOf(chosen, chosen === 'voicemail' ? c : d) };
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
 * What the simulation calls itself in a transcript and summary: a test twin's calls say test mode, so a
 * developer reading one knows it is their test data; a sandbox deployment's live calls say sandbox.
 */
export function simulationLabel(orgId: string): string {
  return isTestOrg(orgId) ? 'test mode simulation' : 'sandbox simulation';
}

/**
 * The simulated conversation, as turns and as text, and its summary, marked as a simulation so nobody
 * mistakes them for a real call. Turns are spread over the call's talk time.
 */
export function sandboxConversation(
  outcome: CallOutcome,
  talkSeconds: number,
  options: { label?: string; direction?: CallDirection } = {},
): { transcript: string; transcriptTurns: TranscriptTurn[]; summary: string } {
  const label = options.label ?? 'sandbox simulation';
  const summary = `[${label}] ${summaries[outcome]}`;
  const inbound = options.direction === 'inbound';
  const transcriptTurns: TranscriptTurn[] = [
    { speaker: 'system', text: `[${label}: no real call was ${inbound ? 'received' : 'placed'}]`, offset_seconds: 0 },
    {
      speaker: 'agent',
      text: inbound
        ? 'Hello, thank you for calling. How can I help you today?'
        : 'Hello, this is the assistant calling on behalf of the team. Is now a good time?',
      offset_seconds: 0,
    },
    {
      speaker: 'contact',
      text: outcome === 'voicemail' ? '(voicemail greeting)' : inbound ? 'Hi, I am calling about your services.' : 'Sure, go ahead.',
      offset_seconds: Math.round(talkSeconds * 0.2),
    },
    { speaker: 'agent', text: summaries[outcome], offset_seconds: Math.round(talkSeconds * 0.5) },
  ];
  return { transcript: transcriptText(transcriptTurns), transcriptTurns, summary };
}
