// Test mode (README, "Test mode"). Every organization has a test twin: an organization of its own whose id
// is the live one's with `test_` after the prefix (`org_2x8F…` → `org_test_2x8F…`). Everything a test
// credential does belongs to the twin, so the isolation every service already enforces by organization keeps
// test and live data apart, with nothing to remember per table; and whether something is test data is a
// function of its organization's id alone, which any service, event consumer or page can tell without a lookup.

import { z } from 'zod';

const livePrefix = 'org_';
const testPrefix = 'org_test_';

/** True for a test twin's id. A live id never has `_` after its prefix (its body is base62). */
export function isTestOrg(orgId: string): boolean {
  return orgId.startsWith(testPrefix);
}

/** `livemode` of everything the organization owns, as events and records state it (Stripe's name). */
export function livemodeOf(orgId: string): boolean {
  return !isTestOrg(orgId);
}

/** The test twin of an organization (itself when it is one). */
export function testTwinOf(orgId: string): string {
  return isTestOrg(orgId) ? orgId : `${testPrefix}${orgId.slice(livePrefix.length)}`;
}

/** The live organization a twin belongs to (itself when it is live): whose members, plan and name it has. */
export function liveOrgOf(orgId: string): string {
  return isTestOrg(orgId) ? `${livePrefix}${orgId.slice(testPrefix.length)}` : orgId;
}

/** The organization of one mode: the live one or its test twin. */
export function orgInMode(orgId: string, mode: Mode): string {
  return mode === 'test' ? testTwinOf(orgId) : liveOrgOf(orgId);
}

export const modeSchema = z.enum(['live', 'test']);
export type Mode = z.infer<typeof modeSchema>;

/**
 * What test credentials may do, instead of their plan's request limits: their own counters (the twin's), so a
 * runaway test cannot use up live traffic's quota, and limits generous enough for a test suite in CI.
 */
export const testModeLimits = {
  /** Each test key's or grant's monthly quota, whatever was asked for. */
  monthlyRequests: 100_000,
  /** The test twin's requests per UTC day, across its credentials. */
  dailyRequests: 50_000,
} as const;
