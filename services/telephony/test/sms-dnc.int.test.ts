import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import type { DncEntry, EventEnvelope, Page, Sms } from '@voice/proto';
import { applySmsReport, deliverSms } from '../src/domain/sms.js';
import { createOutboundSms } from '../src/store/sms.js';
import { collectEvents, type Harness, startHarness } from './support/harness.js';

let h: Harness;
const smsDncEventTypes = ['sms.sent', 'sms.delivered', 'sms.failed', 'dnc.added', 'dnc.removed'] as const;
let events: EventEnvelope<(typeof smsDncEventTypes)[number]>[];
before(async () => {
  h = await startHarness();
  events = await collectEvents(h.deps.bus, 'test-sms-dnc', smsDncEventTypes);
});
after(() => h.close());

const org = testIdentity();

describe('SMS', () => {
  test('sends through the sandbox: queued, then sent and delivered, with segments and cost', async () => {
    const body = 'Ünïcode → needs UCS-2 and this message is long enough to need a second segment for sure.';
    const lead = await h.lead(org);
    const response = await h.request(org, 'POST', '/api/v1/phone/sms', { to: '+14155550301', body, lead_id: lead });
    assert.equal(response.statusCode, 201, response.body);
    const queued = response.json() as Sms;
    assert.equal(queued.lead_id, lead);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.segments, 2);
    const delivered = await eventually('the message to be delivered', async () => {
      const sms = (await h.request(org, 'GET', `/api/v1/phone/sms/${queued.id}`)).json() as Sms;
      // The sandbox's delivery report can overtake the send's own record (see the next test): wait for both.
      return sms.status === 'delivered' && sms.sent_at ? sms : undefined;
    });
    assert.ok(delivered.sent_at && delivered.delivered_at);
    assert.deepEqual(delivered.cost, { amount: 2 * h.deps.env.SANDBOX_SEGMENT_PRICE, currency: 'USD' });
    const types = await eventually('sms.sent and sms.delivered', () => {
      const mine = events.filter((event) => 'sms_id' in event.data && event.data.sms_id === queued.id).map((event) => event.type);
      return mine.length === 2 ? mine : undefined;
    });
    // One of each; in either order, since the report may be recorded before the send is.
    assert.deepEqual([...types].sort(), ['sms.delivered', 'sms.sent']);
  });

  test('a delivery report that overtakes the send: the message stays delivered and keeps the carrier id, sent time and cost', async () => {
    // Stored without a job, so only this test sends it; the carrier reports delivery before it answers
    // the send, as a real carrier's callback can reach us before its API's answer does.
    const row = await createOutboundSms(h.deps.prisma, org.org_id, {
      to: '+14155550302',
      body: 'Hi',
      source: 'api',
      from: '+14155550100',
      segments: 1,
    });
    const carrier = {
      ...h.deps.carrierFor(org.org_id),
      async sendSms() {
        await applySmsReport(h.deps, org.org_id, row.id, { status: 'delivered' });
        return { carrierMessageId: 'SMovertaken0001', costAmount: 7 };
      },
    };
    assert.equal(await deliverSms({ ...h.deps, carrierFor: () => carrier }, org.org_id, row.id), 'sent');
    const sms = (await h.request(org, 'GET', `/api/v1/phone/sms/${row.id}`)).json() as Sms;
    assert.equal(sms.status, 'delivered');
    assert.ok(sms.sent_at && sms.delivered_at, 'both times recorded');
    assert.deepEqual(sms.cost, { amount: 7, currency: 'USD' });
    const stored = await h.deps.prisma.sms.findFirstOrThrow({ where: { id: row.id } });
    assert.equal(stored.carrierMessageId, 'SMovertaken0001');
  });

  test('the same Idempotency-Key sends one message', async () => {
    const identity = testIdentity();
    const headers = { 'idempotency-key': newId('request') };
    const payload = { to: '+14155550302', body: 'once' };
    const first = await h.request(identity, 'POST', '/api/v1/phone/sms', payload, headers);
    const second = await h.request(identity, 'POST', '/api/v1/phone/sms', payload, headers);
    assert.equal(first.json().id, second.json().id);
    assert.equal(await h.deps.prisma.sms.count({ where: { orgId: identity.org_id } }), 1);
  });

  test('lists with filters and pages, scoped to the organization', async () => {
    const identity = testIdentity();
    for (let i = 0; i < 5; i++) await h.request(identity, 'POST', '/api/v1/phone/sms', { to: `+1415555040${i}`, body: `hello ${i}` });
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/v1/phone/sms?limit=2&direction=outbound${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await h.request(identity, 'GET', url)).json() as Page<Sms>;
      ids.push(...page.data.map((sms) => sms.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(ids.length, 5);
    assert.equal(new Set(ids).size, 5);
    const inbound = (await h.request(identity, 'GET', '/api/v1/phone/sms?direction=inbound')).json() as Page<Sms>;
    assert.equal(inbound.data.length, 0);
    const stranger = testIdentity();
    assert.equal(((await h.request(stranger, 'GET', '/api/v1/phone/sms')).json() as Page<Sms>).data.length, 0);
    const foreign = await h.request(stranger, 'GET', `/api/v1/phone/sms/${ids[0]}`);
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error.code, 'not_found');
  });

  test('bad input is 4xx', async () => {
    const cases: Array<[unknown, number]> = [
      [{ to: '+14155550399' }, 400],
      [{ to: '+14155550399', body: '' }, 400],
      [{ to: '+14155550399', body: 'x'.repeat(1601) }, 400],
      [{ to: 'tomorrow', body: 'hi' }, 400],
      [{ to: '+14155550399', body: 'x'.repeat(70_000) }, 413],
    ];
    for (const [payload, status] of cases) {
      const response = await h.request(org, 'POST', '/api/v1/phone/sms', payload);
      assert.equal(response.statusCode, status, response.body);
      assert.ok(response.json().error.code);
    }
    assert.equal((await h.request(org, 'GET', `/api/v1/phone/sms/${newId('sms')}`)).statusCode, 404);
    assert.equal((await h.request(org, 'GET', '/api/v1/phone/sms?cursor=%%%')).statusCode, 400);
  });
});

describe('do-not-call list', () => {
  test('add, check, list, remove, with events; adding twice returns the entry', async () => {
    const identity = testIdentity();
    const phone = '+14155550501';
    const added = await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone, reason: 'Asked on the phone' });
    assert.equal(added.statusCode, 201, added.body);
    const entry = added.json() as DncEntry;
    assert.equal(entry.channel, 'all');
    assert.equal(entry.source, 'api');
    assert.equal(entry.created_by, identity.key_id);
    const again = await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().id, entry.id);

    const check = (await h.request(identity, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(phone)}`)).json();
    assert.deepEqual(
      { listed: check.listed, channels: check.channels, blocks: check.blocks },
      { listed: true, channels: ['all'], blocks: { voice: true, sms: true } },
    );

    const list = (await h.request(identity, 'GET', '/api/v1/phone/dnc')).json() as Page<DncEntry>;
    assert.deepEqual(
      list.data.map((e) => e.id),
      [entry.id],
    );
    await eventually('dnc.added', () => events.find((event) => event.type === 'dnc.added' && event.data.dnc_id === entry.id));

    const removed = await h.request(identity, 'DELETE', `/api/v1/phone/dnc/${entry.id}`);
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), { id: entry.id, object: 'dnc_entry', deleted: true });
    assert.equal((await h.request(identity, 'DELETE', `/api/v1/phone/dnc/${entry.id}`)).statusCode, 404);
    await eventually('dnc.removed', () => events.find((event) => event.type === 'dnc.removed' && event.data.dnc_id === entry.id));
    const after = (await h.request(identity, 'GET', `/api/v1/phone/dnc/check?phone=${encodeURIComponent(phone)}`)).json();
    assert.equal(after.listed, false);
  });

  test('concurrent adds of one number make one entry', async () => {
    const identity = testIdentity();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: '+14155550509', channel: 'voice' })),
    );
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 201]);
    assert.equal(new Set(responses.map((r) => r.json().id)).size, 1);
    assert.equal(await h.deps.prisma.dncEntry.count({ where: { orgId: identity.org_id } }), 1);
  });

  test('refuses both channels for `all`, only its own channel otherwise', async () => {
    const identity = testIdentity();
    await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: '+14155550502', channel: 'all' });
    await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone: '+14155550503', channel: 'sms' });
    const call = await h.request(identity, 'POST', '/api/v1/phone/calls', { to: '+14155550502' });
    const sms = await h.request(identity, 'POST', '/api/v1/phone/sms', { to: '+14155550502', body: 'hi' });
    const smsOnly = await h.request(identity, 'POST', '/api/v1/phone/sms', { to: '+14155550503', body: 'hi' });
    for (const response of [call, sms, smsOnly]) {
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.code, 'dnc_blocked');
    }
    assert.equal(await h.deps.prisma.sms.count({ where: { orgId: identity.org_id } }), 0);
    assert.equal(await h.deps.prisma.call.count({ where: { orgId: identity.org_id } }), 0);
    // The listing is the organization's own: another organization may still call.
    assert.equal((await h.request(testIdentity(), 'POST', '/api/v1/phone/calls', { to: '+14155550502' })).statusCode, 201);
  });

  test('a message queued before the number was listed is blocked at send time, and nothing goes out', async () => {
    const identity = testIdentity();
    const phone = '+14155550504';
    // Stop the worker from picking it up before the listing lands: insert the queued row directly.
    const row = await h.deps.prisma.sms.create({
      data: {
        id: newId('sms'),
        orgId: identity.org_id,
        direction: 'outbound',
        fromNumber: '+15005550006',
        toNumber: phone,
        body: 'hi',
        segments: 1,
        status: 'queued',
        source: 'api',
      },
    });
    await h.request(identity, 'POST', '/api/v1/phone/dnc', { phone, channel: 'sms' });
    await h.deps.queues.enqueueSms(identity.org_id, row.id);
    const blocked = await eventually('the message to be blocked', async () => {
      const sms = (await h.request(identity, 'GET', `/api/v1/phone/sms/${row.id}`)).json() as Sms;
      return sms.status === 'blocked_dnc' ? sms : undefined;
    });
    assert.equal(blocked.sent_at, null);
    assert.equal(blocked.error?.code, 'dnc_blocked');
  });

  test("another organization's entry is 404 to delete and invisible in lists and checks", async () => {
    const owner = testIdentity();
    const stranger = testIdentity();
    const entry = (await h.request(owner, 'POST', '/api/v1/phone/dnc', { phone: '+14155550505' })).json() as DncEntry;
    const response = await h.request(stranger, 'DELETE', `/api/v1/phone/dnc/${entry.id}`);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().error.code, 'not_found');
    assert.equal(((await h.request(stranger, 'GET', '/api/v1/phone/dnc')).json() as Page<DncEntry>).data.length, 0);
    assert.equal((await h.request(stranger, 'GET', '/api/v1/phone/dnc/check?phone=%2B14155550505')).json().listed, false);
    assert.equal((await h.request(owner, 'GET', '/api/v1/phone/dnc/check?phone=%2B14155550505')).json().listed, true);
  });

  test('bad input is 4xx', async () => {
    const bad: Array<[string, string, unknown, number]> = [
      ['POST', '/api/v1/phone/dnc', { phone: '12345' }, 400],
      ['POST', '/api/v1/phone/dnc', { phone: '+14155550506', channel: 'fax' }, 400],
      ['GET', '/api/v1/phone/dnc/check?phone=abc', undefined, 400],
      ['GET', '/api/v1/phone/dnc/check', undefined, 400],
      ['DELETE', `/api/v1/phone/dnc/${newId('dnc')}`, undefined, 404],
      ['DELETE', '/api/v1/phone/dnc/call_123456789', undefined, 400],
      ['GET', '/api/v1/phone/dnc?cursor=abc', undefined, 400],
    ];
    for (const [method, url, payload, status] of bad) {
      const response = await h.request(org, method as 'GET', url, payload);
      assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
      assert.ok(response.json().error.code);
    }
  });
});
