import type { DncChannel } from '@voice/proto';

export type ContactChannel = 'voice' | 'sms';

/** Whether entries of these channels forbid contacting the number on `channel`. */
export function blocks(entryChannels: readonly DncChannel[], channel: ContactChannel): boolean {
  return entryChannels.some((entry) => entry === 'all' || entry === channel);
}

/** The entry channels that block a contact channel: the channel itself and `all`. */
export function blockingChannels(channel: ContactChannel): DncChannel[] {
  return [channel, 'all'];
}

// The opt-out and opt-in keywords US carriers and Twilio honour (CTIA guidelines), matched on the whole
// message, case-insensitively, ignoring surrounding spaces and punctuation.
const optOutKeywords = new Set(['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT OUT', 'REVOKE']);
const optInKeywords = new Set(['START', 'UNSTOP', 'YES']);

function keyword(body: string): string {
  return body
    .trim()
    .replace(/^[\s.!,;:'"-]+|[\s.!,;:'"-]+$/g, '')
    .replace(/\s+/g, ' ')
    .toUpperCase();
}

export function isOptOut(body: string): boolean {
  return optOutKeywords.has(keyword(body));
}

export function isOptIn(body: string): boolean {
  return optInKeywords.has(keyword(body));
}
