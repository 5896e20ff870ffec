import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { ApiError } from '@voice/kit';
import { verifySlackSignature } from '../src/channels/slack.js';
import { formatMoney } from '../src/domain/approval-actions.js';
import { argumentsDigest, canonicalJson } from '../src/domain/canonical.js';
import { envSchema } from '../src/env.js';
import { checkOrigin } from '../src/routes/mcp.js';

// Slack's worked example (api.slack.com/authentication/verifying-requests-from-slack).
const docSecret = '8f742231b10e8888abcd99yyyzzz85a5';
const docTimestamp = '1531420618';
const docBody =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const docSignature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const docTime = new Date(Number(docTimestamp) * 1000 + 60_000);

describe('Slack request signatures', () => {
  test("Slack's documented example verifies", () => {
    assert.deepEqual(verifySlackSignature(docSecret, { timestamp: docTimestamp, signature: docSignature }, docBody, docTime), { ok: true });
  });

  test('a changed body, another secret, a stale timestamp or missing headers are refused, each saying why', () => {
    const check = (secret: string, timestamp: string | undefined, signature: string | undefined, body: string, now = docTime) =>
      verifySlackSignature(secret, { timestamp, signature }, body, now);
    assert.deepEqual(check(docSecret, docTimestamp, docSignature, `${docBody}x`), { ok: false, reason: 'signature does not match' });
    assert.deepEqual(check('another-secret', docTimestamp, docSignature, docBody), { ok: false, reason: 'signature does not match' });
    assert.deepEqual(check(docSecret, docTimestamp, docSignature, docBody, new Date(Number(docTimestamp) * 1000 + 6 * 60_000)), {
      ok: false,
      reason: 'timestamp too old',
    });
    assert.deepEqual(check(docSecret, undefined, docSignature, docBody), { ok: false, reason: 'signature headers missing' });
    assert.deepEqual(check(docSecret, docTimestamp, 'v1=abc', docBody), { ok: false, reason: 'signature malformed' });
    // A signature made with the same secret over another timestamp does not carry over.
    const other = `v0=${createHmac('sha256', docSecret)
      .update(`v0:${Number(docTimestamp) + 1}:${docBody}`)
      .digest('hex')}`;
    assert.deepEqual(check(docSecret, docTimestamp, other, docBody), { ok: false, reason: 'signature does not match' });
  });
});

describe('frozen arguments', () => {
  test('canonical JSON sorts keys at every level and drops undefined', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  test('the digest depends on the tool and the arguments, not on key order', () => {
    const one = argumentsDigest('service_send_invoice', { invoice_id: 'inv_12345678', note: 'x' });
    assert.equal(one, argumentsDigest('service_send_invoice', { note: 'x', invoice_id: 'inv_12345678' }));
    assert.notEqual(one, argumentsDigest('service_deliver_project', { invoice_id: 'inv_12345678', note: 'x' }));
    assert.notEqual(one, argumentsDigest('service_send_invoice', { invoice_id: 'inv_12345679', note: 'x' }));
    assert.match(one, /^[0-9a-f]{64}$/);
  });

  test('money in summaries uses the currency’s minor units', () => {
    assert.equal(formatMoney(123456, 'USD'), '$1,234.56');
    assert.equal(formatMoney(1500, 'JPY'), '¥1,500');
  });
});

describe('origin check', () => {
  test('requests without Origin pass; listed origins pass; others are 403 forbidden', () => {
    assert.doesNotThrow(() => checkOrigin(undefined, []));
    assert.doesNotThrow(() => checkOrigin('https://app.example.com', ['https://app.example.com']));
    assert.doesNotThrow(() => checkOrigin('https://app.example.com/', ['https://app.example.com']));
    for (const origin of ['https://evil.example', 'null', 'http://app.example.com']) {
      assert.throws(
        () => checkOrigin(origin, ['https://app.example.com']),
        (error: unknown) => error instanceof ApiError && error.code === 'forbidden' && error.status === 403,
      );
    }
  });
});

describe('environment', () => {
  test('allowed origins are a trimmed list; a bot token without its verification secret is refused', () => {
    assert.deepEqual(envSchema.parse({ MCP_ALLOWED_ORIGINS: ' https://a.example/, https://b.example ' }).MCP_ALLOWED_ORIGINS, [
      'https://a.example',
      'https://b.example',
    ]);
    assert.deepEqual(envSchema.parse({}).MCP_ALLOWED_ORIGINS, []);
    const telegram = envSchema.safeParse({ TELEGRAM_BOT_TOKEN: '1:abc' });
    assert.equal(telegram.success, false);
    assert.deepEqual(
      telegram.error?.issues.map((issue) => issue.path.join('.')),
      ['TELEGRAM_WEBHOOK_SECRET'],
    );
    const slack = envSchema.safeParse({ SLACK_BOT_TOKEN: 'xoxb-1' });
    assert.deepEqual(
      slack.error?.issues.map((issue) => issue.path.join('.')),
      ['SLACK_SIGNING_SECRET'],
    );
  });
});

describe('approval channel settings', () => {
  test('a Slack webhook must be on hooks.slack.com, and only Slack takes one', async () => {
    const { startChannelLinkSchema } = await import('@voice/proto');
    assert.equal(
      startChannelLinkSchema.safeParse({ kind: 'slack', webhook_url: 'https://hooks.slack.com/services/T0/B0/x' }).success,
      true,
    );
    for (const url of [
      'https://127.0.0.1:8080/admin',
      'https://169.254.169.254/latest',
      'https://hooks.slack.com.evil.test/x',
      'http://hooks.slack.com/x',
    ]) {
      assert.equal(startChannelLinkSchema.safeParse({ kind: 'slack', webhook_url: url }).success, false, url);
    }
    assert.equal(startChannelLinkSchema.safeParse({ kind: 'telegram' }).success, true);
    assert.equal(
      startChannelLinkSchema.safeParse({ kind: 'telegram', webhook_url: 'https://hooks.slack.com/services/T0/B0/x' }).success,
      false,
    );
    // A chat id links nothing any more: the schema does not take one.
    assert.equal(startChannelLinkSchema.safeParse({ kind: 'telegram', chat_id: '-1001234567890' }).success, false);
  });
});
