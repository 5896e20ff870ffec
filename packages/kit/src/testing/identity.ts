import type { Identity } from '@voice/proto';
import { signIdentity } from '../identity.js';
import { newId } from '../ids.js';

export const testSigningSecret = 'test-signing-secret-0123456789abcdef';

/** A caller identity for tests: a fresh organization and key unless given. */
export function testIdentity(overrides: Partial<Identity> = {}): Identity {
  return {
    org_id: newId('org'),
    key_id: newId('key'),
    scope: 'read-write',
    plan: 'pro',
    request_id: newId('request'),
    monthly_used: 1,
    monthly_quota: 10_000,
    ...overrides,
  };
}

/** The headers the gateway would add, for calling a service directly with `inject`. */
export function gatewayHeaders(identity: Identity, method: string, url: string, secret = testSigningSecret): Record<string, string> {
  return signIdentity(identity, { method, url }, secret);
}

/**
 * The credential with its last character changed, whatever it was: a forgery one character from the real one.
 * (Writing a fixed letter leaves a credential that already ends in it unchanged, and so accepted: a test that
 * failed about one run in thirty.)
 */
export function tamperedCredential(credential: string): string {
  return `${credential.slice(0, -1)}${credential.endsWith('x') ? 'y' : 'x'}`;
}
