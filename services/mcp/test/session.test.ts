import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { featuresOf, newSessionId, noFeatures, sessionFeatures, sessionKey } from '../src/mcp/session.js';

const key = sessionKey('a-test-signing-secret-of-at-least-32-chars');

describe('session ids carry the client capabilities across a stateless server', () => {
  test('what a client declared in initialize comes back from its session id, with the same key only', () => {
    const both = newSessionId({ elicitation: { url: {}, form: {} } }, key);
    assert.deepEqual(sessionFeatures(both, key), { elicitUrl: true, elicitForm: true, apps: false });
    assert.deepEqual(sessionFeatures(newSessionId({ elicitation: { url: {} } }, key), key), {
      elicitUrl: true,
      elicitForm: false,
      apps: false,
    });
    assert.deepEqual(sessionFeatures(newSessionId({ sampling: {} }, key), key), noFeatures);
    assert.deepEqual(sessionFeatures(newSessionId(undefined, key), key), noFeatures);
    // MCP Apps (the io.modelcontextprotocol/ui extension with the App MIME type), alone or beside elicitation.
    const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    assert.deepEqual(sessionFeatures(newSessionId(apps, key), key), { ...noFeatures, apps: true });
    assert.deepEqual(sessionFeatures(newSessionId({ ...apps, elicitation: { url: {} } }, key), key), {
      elicitUrl: true,
      elicitForm: false,
      apps: true,
    });
    // The extension without the App MIME type is not Apps.
    const other = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/plain'] } } };
    assert.deepEqual(sessionFeatures(newSessionId(other, key), key), noFeatures);
    // Another deployment's (or a guessed) key: nothing is trusted.
    assert.deepEqual(sessionFeatures(both, sessionKey('another-signing-secret-of-at-least-32-chars')), noFeatures);
  });

  test('an empty elicitation capability means form mode, as before the spec had modes', () => {
    assert.deepEqual(featuresOf({ elicitation: {} }), { elicitUrl: false, elicitForm: true, apps: false });
    assert.deepEqual(featuresOf({ elicitation: { url: {} } }), { elicitUrl: true, elicitForm: false, apps: false });
  });

  test('two sessions of one client differ, and an id is visible ASCII as the spec requires', () => {
    const [a, b] = [newSessionId({ elicitation: { url: {} } }, key), newSessionId({ elicitation: { url: {} } }, key)];
    assert.notEqual(a, b);
    assert.match(a, /^[\x21-\x7e]+$/);
  });

  test('a missing, malformed, forged or tampered id is a client that declared nothing, never an error', () => {
    const real = newSessionId({ elicitation: { form: {} } }, key);
    const [version, , nonce, signature] = real.split('.');
    for (const id of [
      undefined,
      '',
      'not-a-session',
      'v1.u.nonce',
      `${version}.u.${nonce}.${signature}`, // a form-only client claiming URL mode
      `v2.f.${nonce}.${signature}`,
      `${real}x`,
      `${real}.extra`,
      'x'.repeat(5000),
    ]) {
      assert.deepEqual(sessionFeatures(id, key), noFeatures, String(id).slice(0, 40));
    }
  });
});
