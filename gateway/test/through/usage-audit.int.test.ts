// Usage, the audit log and approvals through the gateway with @voice/client: what a key has used, every
// call it made, and a used-up quota as the client reports it (a typed error, not retried for a month).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '@voice/client';
import { eventually } from '@voice/kit/testing';
import { type Platform, startPlatform } from '../support/harness.js';

describe('usage, audit log and approvals through the gateway, with @voice/client', () => {
  let platform: Platform;

  before(async () => {
    platform = await startPlatform({ auditWorker: true, gateway: { AUDIT_PUBLISH_MS: '50', AUDIT_FLUSH_MS: '50' } });
  });
  after(async () => {
    await platform?.close();
  });

  test('usage counts the calls; the audit log lists each of them, every page through the iterator', async () => {
    const org = await platform.org({ quota: 1_000 });
    const voice = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    const before = await voice.usage.get();
    for (let n = 0; n < 3; n++) await voice.calls.stats();
    const after = await voice.usage.get();
    assert.equal(after.monthly.used, before.monthly.used + 4, 'three calls and the usage call before this one');
    assert.equal(after.monthly.quota, 1_000);
    assert.equal(voice.rateLimit?.remaining, 1_000 - after.monthly.used);

    const records = await eventually('the five calls in the audit log', async () => {
      const found: Array<{ path: string; status: number; key_id: string }> = [];
      for await (const record of voice.auditLog.list({ limit: 2 })) if (record.path !== '/api/v1/audit-log') found.push(record);
      return found.length >= 5 ? found : undefined;
    });
    assert.deepEqual(records.map((record) => record.path).sort(), [
      '/api/v1/phone/calls/stats',
      '/api/v1/phone/calls/stats',
      '/api/v1/phone/calls/stats',
      '/api/v1/usage',
      '/api/v1/usage',
    ]);
    assert.ok(records.every((record) => record.status === 200 && record.key_id === org.keyId));
  });

  test('approvals: an organization with none lists none', async () => {
    const org = await platform.org();
    const voice = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    const approvals: unknown[] = [];
    for await (const approval of voice.approvals.list()) approvals.push(approval);
    assert.deepEqual(approvals, []);
  });

  test('a used-up monthly quota is a VoiceApiError quota_exceeded with its Retry-After (a month: beyond the retry bound)', async () => {
    const org = await platform.org({ quota: 2 });
    const voice = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    await voice.usage.get();
    await voice.usage.get();
    assert.equal(voice.rateLimit?.remaining, 0);
    const error = await voice.usage.get().catch((caught: unknown) => caught);
    assert.ok(error instanceof VoiceApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'quota_exceeded');
    assert.ok((error.retryAfterSeconds ?? 0) > 30, `Retry-After ${error.retryAfterSeconds} s, beyond the client's bound`);
    assert.match(error.request_id ?? '', /^req_/);
  });
});
