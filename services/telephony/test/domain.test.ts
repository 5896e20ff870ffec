import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { newId, parseEnv } from '@voice/kit';
import { callOutcomes, callStatuses, isTestOrg, testPhoneNumbers, testTwinOf } from '@voice/proto';
import type { CarrierAdapter } from '../src/carrier/carrier.js';
import { carrierChoice } from '../src/carrier/choice.js';
import { SandboxCarrier } from '../src/carrier/sandbox.js';
import { twilioSignature, verifyTwilioSignature } from '../src/carrier/twilio-signature.js';
import { callEventType, canMove, fromTwilioCallStatus, isFinal, statusesBefore } from '../src/domain/call-status.js';
import { blocks, isOptIn, isOptOut } from '../src/domain/dnc-rules.js';
import { answeredPlay, sandboxScript, simulationLabel } from '../src/domain/sandbox-script.js';
import { smsEncoding, smsSegments } from '../src/domain/sms-segments.js';
import { envSchema } from '../src/env.js';
import { testTwinIdPrefix } from '../src/store/sms.js';

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

describe('test mode', () => {
  const live = newId('org');
  const twin = testTwinOf(live);

  test("a test twin's carrier is the sandbox whatever the deployment's; a live organization's is the configured one", () => {
    const sandbox = new SandboxCarrier({ schedule: async () => {}, timeScale: 1, segmentPrice: 1 });
    const twilio = { name: 'twilio' } as CarrierAdapter;
    const carrierFor = carrierChoice(twilio, sandbox);
    assert.equal(carrierFor(twin), sandbox);
    assert.equal(carrierFor(live), twilio);
    assert.equal(carrierChoice(sandbox, sandbox)(live), sandbox);
  });

  test('a magic number plays out as it says, whatever the call id or metadata', () => {
    for (const [number, expected] of Object.entries(testPhoneNumbers)) {
      for (let i = 0; i < 50; i++) {
        const script = sandboxScript(
          `call_${String(i).padStart(12, '0')}`,
          { sandbox_status: 'busy', sandbox_outcome: 'spam' },
          { contact: number },
        );
        assert.deepEqual([script.finalStatus, script.outcome], [expected.status, expected.outcome], number);
        assert.equal(script.talkSeconds > 0, expected.status === 'completed', number);
      }
    }
    // Any other number keeps the realistic mix.
    const statuses = new Set(
      Array.from({ length: 300 }, (_, i) => sandboxScript(`call_${i}mix0000000`, {}, { contact: '+14155550100' }).finalStatus),
    );
    assert.deepEqual([...statuses].sort(), ['busy', 'completed', 'no_answer']);
  });

  test('an inbound call is answered: its outcome is the chosen one, a completing magic caller’s, or the mix', () => {
    const inbound = (metadata: Record<string, unknown>, contact: string) =>
      sandboxScript('call_CCCCCCCCCCCCCCCC', metadata, { direction: 'inbound', contact });
    assert.deepEqual(
      [inbound({ sandbox_outcome: 'booked' }, '+15005550101').outcome, inbound({}, '+15005550101').outcome],
      ['booked', 'qualified_lead'],
    );
    for (let i = 0; i < 100; i++) {
      const script = sandboxScript(`call_${i}inbound0000`, {}, { direction: 'inbound', contact: '+15005550103' });
      assert.equal(script.finalStatus, 'completed');
      assert.ok(script.outcome && script.talkSeconds > 0);
    }
  });

  test('a call answered against its script, or given another outcome, gets a talk time to match', () => {
    const busy = sandboxScript('call_DDDDDDDDDDDDDDDD', {}, { contact: '+15005550103' });
    const play = answeredPlay('call_DDDDDDDDDDDDDDDD', busy);
    assert.ok(callOutcomes.includes(play.outcome) && play.talkSeconds >= 20);
    assert.deepEqual(answeredPlay('call_DDDDDDDDDDDDDDDD', busy), play, 'the same every time');
    const voicemail = answeredPlay('call_DDDDDDDDDDDDDDDD', busy, 'voicemail');
    assert.ok(voicemail.outcome === 'voicemail' && voicemail.talkSeconds >= 20 && voicemail.talkSeconds <= 45);
    const completed = sandboxScript('call_EEEEEEEEEEEEEEEE', {}, { contact: '+15005550101' });
    assert.deepEqual(answeredPlay('call_EEEEEEEEEEEEEEEE', completed), { outcome: 'qualified_lead', talkSeconds: completed.talkSeconds });
  });

  test("a test twin's simulation says test mode; real inbound routing leaves out exactly the test twins", () => {
    assert.equal(simulationLabel(twin), 'test mode simulation');
    assert.equal(simulationLabel(live), 'sandbox simulation');
    assert.ok(twin.startsWith(testTwinIdPrefix) && !live.startsWith(testTwinIdPrefix));
    assert.ok(isTestOrg(`${testTwinIdPrefix}abcdefgh`));
  });

  test("the README's table of magic numbers is testPhoneNumbers", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = [...readme.matchAll(/^\| `(\+[0-9]+)` \| `([a-z_]+)` \| (?:`([a-z_]+)`|—) \| (.+) \|$/gm)].map((row) => [
      row[1],
      { status: row[2], outcome: row[3] ?? null, means: row[4] },
    ]);
    assert.deepEqual(Object.fromEntries(rows), testPhoneNumbers);
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
