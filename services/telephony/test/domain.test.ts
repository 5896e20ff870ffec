import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseEnv } from '@voice/kit';
import { callOutcomes, callStatuses } from '@voice/proto';
import { twilioSignature, verifyTwilioSignature } from '../src/carrier/twilio-signature.js';
import { callEventType, canMove, fromTwilioCallStatus, isFinal, statusesBefore } from '../src/domain/call-status.js';
import { blocks, isOptIn, isOptOut } from '../src/domain/dnc-rules.js';
import { sandboxScript } from '../src/domain/sandbox-script.js';
import { smsEncoding, smsSegments } from '../src/domain/sms-segments.js';
import { envSchema } from '../src/env.js';

describe('SMS segments', () => {
  test('GSM-7 fits 160 in one part and 153 per part after that', () => {
    assert.equal(smsSegments('a'.repeat(160)), 1);
    assert.equal(smsSegments('a'.repeat(161)), 2);
    assert.equal(smsSegments('a'.repeat(306)), 2);
    assert.equal(smsSegments('a'.repeat(307)), 3);
    assert.equal(smsEncoding('Hello @ £5, ok?'), 'GSM-7');
  });
  test('extension characters count twice', () => {
    assert.equal(smsSegments('€'.repeat(80)), 1);
    assert.equal(smsSegments('€'.repeat(81)), 2);
  });
  test('anything else is UCS-2: 70, then 67 per part', () => {
    assert.equal(smsEncoding('ção'), 'UCS-2');
    assert.equal(smsSegments('ç'.repeat(70)), 1);
    assert.equal(smsSegments('ç'.repeat(71)), 2);
    assert.equal(smsSegments('ç'.repeat(134)), 2);
    assert.equal(smsSegments('ç'.repeat(135)), 3);
  });
});

describe('do-not-call rules', () => {
  test('`all` blocks both channels, a channel only itself', () => {
    assert.equal(blocks(['all'], 'voice'), true);
    assert.equal(blocks(['all'], 'sms'), true);
    assert.equal(blocks(['sms'], 'voice'), false);
    assert.equal(blocks(['sms'], 'sms'), true);
    assert.equal(blocks([], 'sms'), false);
  });
  test('STOP and its synonyms, whole message only, any case', () => {
    for (const body of ['STOP', 'stop', ' Stop. ', 'STOPALL', 'stop all', 'Unsubscribe', 'cancel', 'END', 'quit', 'opt out', 'REVOKE']) {
      assert.equal(isOptOut(body), true, body);
    }
    for (const body of ['please stop calling me at night', 'don’t stop', 'STOPPED', '']) assert.equal(isOptOut(body), false, body);
    assert.equal(isOptIn('start'), true);
    assert.equal(isOptIn('UNSTOP'), true);
    assert.equal(isOptIn('restart the thing'), false);
  });
});

describe('call status', () => {
  test('moves only forward and never out of a final status', () => {
    assert.equal(canMove('queued', 'ringing'), true);
    assert.equal(canMove('in_progress', 'ringing'), false);
    assert.equal(canMove('completed', 'failed'), false);
    for (const status of callStatuses) {
      if (isFinal(status)) assert.deepEqual(statusesBefore(status), ['queued', 'ringing', 'in_progress']);
    }
    assert.deepEqual(statusesBefore('queued'), []);
  });
  test("maps Twilio's statuses and names the event of each", () => {
    assert.equal(fromTwilioCallStatus('in-progress'), 'in_progress');
    assert.equal(fromTwilioCallStatus('no-answer'), 'no_answer');
    assert.equal(fromTwilioCallStatus('initiated'), undefined);
    assert.equal(callEventType('in_progress'), 'call.started');
    assert.equal(callEventType('busy'), 'call.failed');
    assert.equal(callEventType('completed'), 'call.completed');
  });
});

describe('sandbox script', () => {
  test('is the same for the same call, so a retried dial replays it', () => {
    assert.deepEqual(sandboxScript('call_AAAAAAAAAAAAAAAA', {}), sandboxScript('call_AAAAAAAAAAAAAAAA', {}));
  });
  test('completed calls have an outcome and talk time; others have neither', () => {
    for (let i = 0; i < 300; i++) {
      const script = sandboxScript(`call_${String(i).padStart(12, '0')}`, {});
      if (script.finalStatus === 'completed') {
        assert.ok(script.outcome && callOutcomes.includes(script.outcome));
        assert.ok(script.talkSeconds > 0);
      } else {
        assert.equal(script.outcome, null);
        assert.equal(script.talkSeconds, 0);
      }
      assert.ok(script.dialSeconds >= 1 && script.ringSeconds >= 1);
    }
  });
  test('metadata can force a status and an outcome', () => {
    const forced = sandboxScript('call_BBBBBBBBBBBBBBBB', { sandbox_status: 'completed', sandbox_outcome: 'booked' });
    assert.equal(forced.finalStatus, 'completed');
    assert.equal(forced.outcome, 'booked');
    assert.equal(sandboxScript('call_BBBBBBBBBBBBBBBB', { sandbox_status: 'no_answer' }).finalStatus, 'no_answer');
    // Unknown values are ignored rather than trusted.
    assert.ok(
      ['completed', 'busy', 'no_answer'].includes(sandboxScript('call_BBBBBBBBBBBBBBBB', { sandbox_status: 'exploded' }).finalStatus),
    );
  });
});

describe('Twilio signature', () => {
  // The worked example from Twilio's documentation ("Validating requests are coming from Twilio").
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
  test("matches Twilio's documented example", () => {
    assert.equal(twilioSignature('12345', url, params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });
  test('verifies only the exact URL, parameters and token', () => {
    const signature = twilioSignature('12345', url, params);
    assert.equal(verifyTwilioSignature('12345', url, params, signature), true);
    assert.equal(verifyTwilioSignature('12346', url, params, signature), false);
    assert.equal(verifyTwilioSignature('12345', `${url}&baz=3`, params, signature), false);
    assert.equal(verifyTwilioSignature('12345', url, { ...params, Digits: '1235' }, signature), false);
    assert.equal(verifyTwilioSignature('12345', url, params, undefined), false);
    assert.equal(verifyTwilioSignature('12345', url, params, 'short'), false);
  });
});

describe('environment', () => {
  test('the sandbox needs nothing; Twilio needs its account sid and token', () => {
    assert.equal(parseEnv(envSchema, {}).TELEPHONY_CARRIER, 'sandbox');
    assert.throws(() => parseEnv(envSchema, { TELEPHONY_CARRIER: 'twilio' }), /TWILIO_ACCOUNT_SID.*TWILIO_AUTH_TOKEN|TWILIO_AUTH_TOKEN/);
    const env = parseEnv(envSchema, {
      TELEPHONY_CARRIER: 'twilio',
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'x'.repeat(32),
      WORKERS: 'outbox',
    });
    assert.deepEqual([...env.WORKERS], ['outbox']);
  });
});
