import { z } from 'zod';

/** Prefixed string ids, one prefix per record type, so an id says what it is (Stripe style). */
export const idPrefixes = {
  org: 'org',
  key: 'key',
  call: 'call',
  sms: 'sms',
  dnc: 'dnc',
  lead: 'lead',
  note: 'note',
  workspace: 'ws',
  theme: 'thm',
  sequence: 'seq',
  enrollment: 'enr',
  invoice: 'inv',
  project: 'prj',
  document: 'doc',
  passage: 'psg',
  brandScore: 'bsc',
  approval: 'apr',
  webhook: 'whk',
  delivery: 'dlv',
  event: 'evt',
  audit: 'aud',
  request: 'req',
  user: 'usr',
  membership: 'mbr',
  invitation: 'ivt',
  grant: 'grt',
  oauthClient: 'cli',
} as const;

export type IdKind = keyof typeof idPrefixes;

/** The body after the prefix: base62, 8 to 40 characters. Unknown or malformed ids fail validation early. */
export function idSchema(kind: IdKind) {
  const prefix = idPrefixes[kind];
  // An organization's test twin is `org_test_…` (mode.ts).
  const infix = kind === 'org' ? '(?:test_)?' : '';
  return z
    .string()
    .regex(new RegExp(`^${prefix}_${infix}[0-9A-Za-z]{8,40}$`), `must be a ${kind} id (${prefix}_…)`)
    .describe(`${kind} id, e.g. ${prefix}_2x8Fq0aZ9kLm4Rt7`);
}
