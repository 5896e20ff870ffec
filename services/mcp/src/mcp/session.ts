import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { appsDeclared } from '../apps/index.js';

/**
 * The `Mcp-Session-Id` of a stateless server. Every POST gets a new server on any replica, so nothing
 * remembers what a client declared in `initialize`; the id carries it instead: the client capabilities the
 * server acts on, a random nonce (two sessions of one client differ), and an HMAC over both. The client
 * sends it back on every request (spec, "Session Management"), and any replica reads it with the same key.
 *
 * It says what the client can do, never who it is: every request is still authenticated by its key, and a
 * missing, malformed or forged id only means a client that declared nothing (no elicitation), never an error.
 */
export interface ClientFeatures {
  /** The client shows URL-mode elicitations (`capabilities.elicitation.url`). */
  elicitUrl: boolean;
  /** The client shows form-mode elicitations (`elicitation.form`, or an empty `elicitation`, as before 2025-11-25). */
  elicitForm: boolean;
  /** The client renders MCP Apps (`extensions["io.modelcontextprotocol/ui"]` with their MIME type). */
  apps: boolean;
}

export const noFeatures: ClientFeatures = { elicitUrl: false, elicitForm: false, apps: false };

/** The session id's format version: a later one with other fields is simply not read by this code. */
const version = 'v1';

/**
 * The HMAC key of session ids, derived from the internal signing secret (which every process has, and
 * which parseEnv refuses to leave at its published development value in production), under a label of its
 * own so that no signature made here is ever a valid identity signature or the other way round.
 */
export function sessionKey(internalSigningSecret: string): Buffer {
  return createHmac('sha256', internalSigningSecret).update('mcp-session-id/v1').digest();
}

/** What the server acts on from a client's declared capabilities. */
export function featuresOf(capabilities: ClientCapabilities | undefined): ClientFeatures {
  const apps = appsDeclared(capabilities);
  const elicitation = capabilities?.elicitation as { url?: unknown; form?: unknown } | undefined;
  if (!elicitation || typeof elicitation !== 'object') return { ...noFeatures, apps };
  const url = elicitation.url !== undefined;
  // An empty object is form mode (the SDK and the spec keep that meaning for clients from before modes).
  return { elicitUrl: url, elicitForm: elicitation.form !== undefined || (!url && Object.keys(elicitation).length === 0), apps };
}

const flagsOf = (features: ClientFeatures) =>
  `${features.elicitUrl ? 'u' : ''}${features.elicitForm ? 'f' : ''}${features.apps ? 'a' : ''}` || '-';

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}

/** A new session id for a client that declared these capabilities: visible ASCII only, as the spec asks. */
export function newSessionId(capabilities: ClientCapabilities | undefined, key: Buffer): string {
  const body = `${version}.${flagsOf(featuresOf(capabilities))}.${randomBytes(12).toString('base64url')}`;
  return `${body}.${mac(key, body)}`;
}

/** The features a session id carries; none for a missing, malformed, unknown-version or forged one. */
export function sessionFeatures(sessionId: string | undefined, key: Buffer): ClientFeatures {
  if (!sessionId || sessionId.length > 200) return noFeatures;
  const parts = sessionId.split('.');
  if (parts.length !== 4 || parts[0] !== version) return noFeatures;
  const [, flags = '', , signature = ''] = parts;
  const expected = Buffer.from(mac(key, parts.slice(0, 3).join('.')));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return noFeatures;
  return { elicitUrl: flags.includes('u'), elicitForm: flags.includes('f'), apps: flags.includes('a') };
}
