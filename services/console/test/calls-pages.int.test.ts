// The calls pages without a browser, through the gateway, with the real telephony, leads, webhooks and gateway
// services behind the console. Telephony runs without its dialer (WORKERS=outbox: events are published, no
// call is placed), so a call queued here stays queued and the tests set other statuses on rows they insert.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { newId } from '@voice/kit';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import { type CallStatus, gatewayRpc, telephonyRpc } from '@voice/proto';
import { Browser, invitePerson } from './support/harness.js';

const list = '/dashboard/calls';
const dayMs = 86_400_000;

describe('the calls pages, through the gateway', () => {
  let platform: Platform<'telephony' | 'leads' | 'webhooks' | 'console'>;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['telephony', 'leads', 'webhooks', 'console'], telephony: { WORKERS: 'outbox' } });
  });
  after(async () => {
    await platform?.close();
    await receiver?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.9');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }

  let sequence = 0;
  /** Calls inserted into telephony's table, as the dialer and carrier would have left them; newest last. */
  async function seedCalls(
    orgId: string,
    rows: Array<
      Partial<{
        direction: 'inbound' | 'outbound';
        status: CallStatus;
        outcome: 'booked' | 'voicemail' | null;
        leadId: string;
        to: string;
        endReason: string;
        createdAt: Date;
        carrierCallId: string;
      }>
    >,
  ) {
    const now = Date.now();
    const data = rows.map((row, index) => ({
      id: newId('call'),
      orgId,
      direction: row.direction ?? ('outbound' as const),
      fromNumber: '+15005550006',
      toNumber: row.to ?? `+1415555${String(1000 + (sequence++ % 9000)).padStart(4, '0')}`,
      status: row.status ?? ('completed' as const),
      outcome: row.outcome ?? null,
      leadId: row.leadId ?? null,
      endReason: row.endReason ?? null,
      carrierCallId: row.carrierCallId ?? null,
      source: 'api' as const,
      createdAt: row.createdAt ?? new Date(now - (rows.length - index) * 1000),
    }));
    await platform.telephony.deps.prisma.call.createMany({ data });
    return data.map((row) => row.id);
  }

  const rowIds = (body: string) => [...body.matchAll(/<tr id="row-(call_[0-9A-Za-z]+)"/g)].map((match) => match[1]);
  const link = (body: string, id: string) => {
    const href = new RegExp(`id="${id}" href="([^"]+)"`).exec(body)?.[1];
    assert.ok(href, `the page links ${id}`);
    return href.replaceAll('&amp;', '&');
  };

  test('the list: newest first, each filter of the URL contract, whole days in the person’s time zone, and paging both ways', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'owner');
    const lead = newId('lead');
    const now = Date.now();
    const ids = await seedCalls(orgId, [
      {
        direction: 'inbound',
        status: 'completed',
        outcome: 'booked',
        leadId: lead,
        to: '+15005550006',
        createdAt: new Date(now - 3 * dayMs),
      },
      { direction: 'outbound', status: 'no_answer', to: '+14155559876', createdAt: new Date(now - 2 * dayMs) },
      { direction: 'outbound', status: 'completed', outcome: 'voicemail', to: '+14155550111', createdAt: new Date(now - 60_000) },
    ]);
    const [booked, unanswered, voicemail] = ids as [string, string, string];
    const [theirs] = await seedCalls(other.orgId, [{}]);

    const all = await browser.get(list);
    assert.equal(all.statusCode, 200, all.body);
    assert.match(all.body, /<a href="\/dashboard\/calls" aria-current="page">Calls<\/a>/);
    assert.deepEqual(rowIds(all.body), [voicemail, unanswered, booked]);
    assert.equal(all.body.includes(theirs as string), false, "another organization's call is not listed");
    assert.match(all.body, /data-live="call"/);
    assert.match(all.body, /<script src="\/dashboard\/static\/live.js" defer><\/script>/);
    assert.match(all.body, new RegExp(`<a href="/dashboard/leads/${lead}"><code class="lead-ref">${lead}</code></a>`));
    assert.match(all.body, /\+1 415 555 0111/);

    const filtered = async (query: string) => rowIds((await browser.get(`${list}?${query}`)).body);
    assert.deepEqual(await filtered('direction=inbound'), [booked]);
    assert.deepEqual(await filtered('status=no_answer'), [unanswered]);
    assert.deepEqual(await filtered('outcome=voicemail'), [voicemail]);
    assert.deepEqual(await filtered(`lead_id=${lead}`), [booked]);
    assert.deepEqual(await filtered('number=9876'), [unanswered]);
    assert.deepEqual(await filtered('number=%2B1+415-555'), [voicemail, unanswered], 'spaces and dashes of a typed number are dropped');
    assert.deepEqual(await filtered('direction=&status=&outcome=&lead_id=&number=&from=&to=&cursor='), [voicemail, unanswered, booked]);
    const day = (offset: number) => new Date(now - offset * dayMs).toISOString().slice(0, 10);
    assert.deepEqual(await filtered(`from=${day(2)}&to=${day(2)}`), [unanswered], 'one whole day, both ends included');
    assert.deepEqual(await filtered(`from=${day(3)}`), [voicemail, unanswered, booked]);
    assert.deepEqual(await filtered(`to=${day(1)}`), [unanswered, booked]);
    const nothing = await browser.get(`${list}?direction=inbound&status=failed`);
    assert.match(nothing.body, /id="calls-empty">No calls match these filters./);

    // A person far ahead of UTC: "today" starts at their midnight, hours before UTC's.
    await platform.console.deps.prisma.user.update({ where: { id: browser.userId }, data: { timeZone: 'Pacific/Kiritimati' } });
    const [late] = await seedCalls(orgId, [{ createdAt: new Date(`${day(10)}T11:30:00.000Z`) }]);
    const kiritimatiDay = new Date(Date.parse(`${day(10)}T11:30:00.000Z`) + 14 * 3_600_000).toISOString().slice(0, 10);
    assert.deepEqual(await filtered(`from=${kiritimatiDay}&to=${kiritimatiDay}`), [late]);
    assert.deepEqual(await filtered(`from=${day(10)}&to=${day(10)}`), []);
  });

  test('a malformed filter is a 400 page naming the field; the list pages both ways with Newer and Older', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'member');
    for (const [query, field] of [
      ['direction=sideways', 'direction'],
      ['status=ringing_twice', 'status'],
      ['outcome=maybe', 'outcome'],
      ['lead_id=abc', 'lead_id'],
      ['number=12', 'number'],
      ['number=%3D1%2B2', 'number'],
      ['from=2026-13-01', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-11-27&to=2026-11-01', 'from'],
      [`cursor=${'x'.repeat(600)}`, 'cursor'],
    ] as const) {
      const response = await browser.get(`${list}?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.match(response.body, new RegExp(`The ${field} filter is not valid`), query);
      const csv = await browser.get(`${list}/export.csv?${query}`);
      assert.equal(csv.statusCode, 400, `CSV ${query}`);
    }
    const damaged = await browser.get(`${list}?cursor=not-a-cursor`);
    assert.equal(damaged.statusCode, 400);

    const ids = await seedCalls(
      orgId,
      Array.from({ length: 30 }, () => ({})),
    );
    const newestFirst = [...ids].reverse();
    const first = await browser.get(list);
    assert.deepEqual(rowIds(first.body), newestFirst.slice(0, 25));
    assert.equal(first.body.includes('id="calls-newer"'), false, 'the first page has no Newer link');
    const older = await browser.get(link(first.body, 'calls-older'));
    assert.deepEqual(rowIds(older.body), newestFirst.slice(25));
    assert.equal(older.body.includes('id="calls-older"'), false, 'the last page has no Older link');
    const newer = await browser.get(link(older.body, 'calls-newer'));
    assert.deepEqual(rowIds(newer.body), newestFirst.slice(0, 25));
    // Filters travel with the cursor.
    const outbound = await browser.get(`${list}?direction=outbound&number=555`);
    assert.match(link(outbound.body, 'calls-older'), /^\/dashboard\/calls\?direction=outbound&number=555&cursor=/);
  });

  test('the empty list says what to do next; a member gets no queue link', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const page = await owner.get(list);
    assert.match(page.body, /id="calls-empty">No calls yet./);
    assert.match(page.body, /<a href="\/dashboard\/calls\/new">Queue one<\/a>, or connect an AI agent/);
    assert.match(page.body, /id="calls-new"/);
    const member = await signedIn(orgId, 'member');
    const theirs = await member.get(list);
    assert.match(theirs.body, /No calls yet./);
    assert.equal(theirs.body.includes('id="calls-new"'), false);
    assert.equal(theirs.body.includes('href="/dashboard/calls/new"'), false);
  });

  test('the CSV: the filtered list, every page, formula-safe cells', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'member');
    const [formula, plain] = await seedCalls(orgId, [
      { endReason: '=HYPERLINK("http://evil.example","x")', status: 'failed' },
      { endReason: 'hangup', status: 'completed' },
      { direction: 'inbound' },
    ]);
    await platform.telephony.deps.prisma.call.update({ where: { id: plain as string }, data: { costAmount: 125, costCurrency: 'USD' } });
    const response = await browser.get(`${list}/export.csv?direction=outbound`);
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.headers['content-type'] as string, /^text\/csv/);
    assert.match(response.headers['content-disposition'] as string, new RegExp(`attachment; filename="calls-${orgId}.csv"`));
    const lines = response.body.trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'created_at,id,direction,from,to,lead_id,workspace_id,status,outcome,duration_seconds,cost,currency,end_reason,source,started_at,ended_at',
    );
    assert.equal(lines.length, 3, 'the header and the two outbound calls');
    // A number starts with +, which a spreadsheet reads as a formula: it gets the apostrophe too.
    assert.match(
      lines[1] as string,
      new RegExp(`^[^,]+,${plain},outbound,'\\+15005550006,'\\+1415555\\d{4},,,completed,,,1\\.25,USD,hangup,api,,$`),
    );
    assert.match(lines[2] as string, new RegExp(`${formula},.*,"'=HYPERLINK\\(""http://evil.example"",""x""\\)",api`));
    const page = await browser.get(`${list}?direction=outbound&number=555`);
    assert.match(page.body, /id="calls-csv" class="button" href="\/dashboard\/calls\/export.csv\?direction=outbound&amp;number=555"/);
  });

  test('queue a call: success with a toast and an audit record, refusals on their field in words, a double submit makes one call', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const form = await owner.get(`${list}/new`);
    assert.equal(form.statusCode, 200);
    const formKey = /name="form_key" value="([^"]+)"/.exec(form.body)?.[1] as string;
    assert.match(formKey, /^[A-Za-z0-9_-]{43}$/);

    const queued = await owner.post(list, { to: '+1 (415) 555-2671', lead_id: '', workspace_id: '', form_key: formKey });
    assert.equal(queued.statusCode, 303, queued.body);
    const location = queued.headers.location as string;
    assert.match(location, /^\/dashboard\/calls\/call_[0-9A-Za-z]+$/);
    const callPage = await owner.get(location);
    assert.match(callPage.body, /role="status">Call queued.<\/p>/);
    assert.match(callPage.body, /Call to \+1 415 555 2671/);
    assert.match(callPage.body, /id="call-status">queued</);
    const callId = location.split('/').at(-1) as string;
    // Submitted again (a double click, a reload of the POST): the same call, no second one.
    const again = await owner.post(list, { to: '+14155552671', form_key: formKey });
    assert.equal(again.headers.location, location);
    const calls = await platform.telephony.deps.prisma.call.findMany({ where: { orgId } });
    assert.deepEqual(
      calls.map((call) => call.id),
      [callId],
    );
    // Audited as the API audits requests, each with the person as actor: the first submit and its replay.
    const audit = await platform.gateway.deps.bus.call(
      gatewayRpc.listAuditLog,
      { ...(await personIdentity(orgId, owner.userId)) },
      { actor_type: 'user', limit: 5 },
    );
    assert.deepEqual(
      audit.data.map((record) => [record.key_id, record.method, record.path, record.status]),
      [
        [owner.userId, 'POST', '/dashboard/calls', 201],
        [owner.userId, 'POST', '/dashboard/calls', 201],
      ],
    );

    // Two submits of one form at once: one call.
    const next = /name="form_key" value="([^"]+)"/.exec((await owner.get(`${list}/new`)).body)?.[1] as string;
    const both = await Promise.all([
      owner.post(list, { to: '+14155552672', form_key: next }),
      owner.post(list, { to: '+14155552672', form_key: next }),
    ]);
    assert.deepEqual(
      both.map((response) => response.statusCode),
      [303, 303],
    );
    assert.equal(both[0]?.headers.location, both[1]?.headers.location);
    assert.equal(await platform.telephony.deps.prisma.call.count({ where: { orgId, toNumber: '+14155552672' } }), 1);

    const refusal = async (fields: Record<string, string>) => {
      const key = /name="form_key" value="([^"]+)"/.exec((await owner.get(`${list}/new`)).body)?.[1] as string;
      return owner.post(list, { form_key: key, ...fields });
    };
    const invalid = await refusal({ to: '0415 555' });
    assert.equal(invalid.statusCode, 400, invalid.body);
    assert.match(invalid.body, /id="call-to-error" class="field-error">Enter the number in international form/);
    assert.match(invalid.body, /aria-invalid="true"/);
    assert.match(invalid.body, /value="0415555"/, 'what was typed stays in the field');

    const dnc = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/phone/dnc',
      headers: bearer(key),
      payload: { phone: '+14155552699', channel: 'voice' },
    });
    assert.equal(dnc.statusCode, 201, dnc.body);
    const blocked = await refusal({ to: '+14155552699' });
    assert.equal(blocked.statusCode, 422, blocked.body);
    assert.match(blocked.body, /id="call-to-error" class="field-error">\+14155552699 is on the do-not-call list/);

    const unknownLead = await refusal({ to: '+14155552673', lead_id: 'lead_0123456789abcdef' });
    assert.equal(unknownLead.statusCode, 404, unknownLead.body);
    assert.match(unknownLead.body, /id="call-lead-error" class="field-error">This organization has no lead with this id./);
    const damaged = await owner.post(list, { to: '+14155552674', form_key: 'x' });
    assert.equal(damaged.statusCode, 400);
    assert.match(damaged.body, /The form is damaged; open it again./);
    assert.equal(await platform.telephony.deps.prisma.call.count({ where: { orgId } }), 2, 'no refused call was stored');
  });

  /** The identity the console calls the gateway with for a person (the audit log is read as them). */
  async function personIdentity(orgId: string, userId: string) {
    return {
      org_id: orgId,
      key_id: userId,
      user_id: userId,
      scope: 'read' as const,
      plan: 'pro' as const,
      request_id: newId('request'),
      monthly_used: 0,
      monthly_quota: 0,
    };
  }

  test('cancel: a queued or a ringing call after its confirmation; an ended one is a 409 in words', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const [queued, ringing, done] = (await seedCalls(orgId, [
      { status: 'queued' },
      { status: 'ringing', carrierCallId: 'SB0123456789abcdef' },
      { status: 'completed' },
    ])) as [string, string, string];
    for (const id of [queued, ringing]) {
      const page = await owner.get(`${list}/${id}`);
      assert.match(page.body, new RegExp(`id="call-cancel" class="button" href="/dashboard/calls/${id}/cancel"`));
      const confirm = await owner.get(`${list}/${id}/cancel`);
      assert.equal(confirm.statusCode, 200, confirm.body);
      assert.match(confirm.body, /id="call-cancel-confirm"/);
      assert.match(confirm.body, />Keep the call</);
      const canceled = await owner.post(`${list}/${id}/cancel`, {});
      assert.equal(canceled.statusCode, 303, canceled.body);
      assert.equal(canceled.headers.location, `${list}/${id}`);
      const after = await owner.get(`${list}/${id}`);
      assert.match(after.body, /role="status">Call canceled.<\/p>/);
      assert.match(after.body, /id="call-status">canceled</);
      assert.equal(after.body.includes('id="call-cancel"'), false);
    }
    assert.match(
      (await owner.get(`${list}/${ringing}/cancel`)).body,
      /This call is canceled: only queued or ringing calls can be canceled./,
    );
    const page = await owner.get(`${list}/${done}`);
    assert.equal(page.body.includes('id="call-cancel"'), false);
    const confirm = await owner.get(`${list}/${done}/cancel`);
    assert.equal(confirm.statusCode, 409);
    assert.match(confirm.body, /This call is completed: only queued or ringing calls can be canceled./);
    const refused = await owner.post(`${list}/${done}/cancel`, {});
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /Only queued or ringing calls can be canceled; this call is completed./);
    assert.equal((await platform.telephony.deps.prisma.call.findUniqueOrThrow({ where: { id: done } })).status, 'completed');
    const audit = await platform.gateway.deps.bus.call(gatewayRpc.listAuditLog, await personIdentity(orgId, owner.userId), {
      actor_type: 'user',
      limit: 5,
    });
    // Every attempt is audited with what it was answered, as the API's calls are: the refusal too.
    assert.deepEqual(
      audit.data.map((record) => `${record.path} ${record.status}`).sort(),
      [`${list}/${queued}/cancel 200`, `${list}/${ringing}/cancel 200`, `${list}/${done}/cancel 409`].sort(),
    );
  });

  test('a member sees every call but gets no forms, and each hand-made POST is 403', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const member = await signedIn(orgId, 'member');
    const [queued] = (await seedCalls(orgId, [{ status: 'queued' }])) as [string];
    const page = await member.get(`${list}/${queued}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.body.includes('id="call-cancel"'), false);
    assert.equal((await member.get(`${list}/new`)).statusCode, 403);
    assert.equal((await member.get(`${list}/${queued}/cancel`)).statusCode, 403);
    const queue = await member.post(list, { to: '+14155552680', idempotency_key: 'form_0123456789abcdefghij' });
    assert.equal(queue.statusCode, 403);
    assert.equal((await member.post(`${list}/${queued}/cancel`, {})).statusCode, 403);
    const calls = await platform.telephony.deps.prisma.call.findMany({ where: { orgId }, select: { id: true, status: true } });
    assert.deepEqual(calls, [{ id: queued, status: 'queued' }]);
  });

  test("another organization's call, or a malformed id, is a 404 page on the call's page, its confirmation and its cancel", async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const [theirs] = (await seedCalls(other.orgId, [{ status: 'queued' }])) as [string];
    for (const id of [theirs, 'call_x', 'not-a-call', newId('call')]) {
      assert.equal((await owner.get(`${list}/${id}`)).statusCode, 404, id);
      assert.equal((await owner.get(`${list}/${id}/cancel`)).statusCode, 404, id);
      assert.equal((await owner.post(`${list}/${id}/cancel`, {})).statusCode, 404, id);
    }
    assert.equal((await platform.telephony.deps.prisma.call.findUniqueOrThrow({ where: { id: theirs } })).status, 'queued');
  });

  test("a call's page: facts, timeline, transcript turns, summary, recording (its origin in the page's media-src), metadata, events and their deliveries", async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const endpoint = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: receiver.url, event_types: ['call.queued'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const workspace = await platform.gateway.deps.bus.call(
      (await import('@voice/proto')).leadsRpc.createWorkspace,
      { ...(await personIdentity(orgId, owner.userId)), scope: 'read-write' },
      { name: 'Sales' },
    );
    const formKey = /name="form_key" value="([^"]+)"/.exec((await owner.get(`${list}/new`)).body)?.[1] as string;
    const queued = await owner.post(list, { to: '+14155552690', workspace_id: workspace.id, form_key: formKey });
    assert.equal(queued.statusCode, 303, queued.body);
    const id = (queued.headers.location as string).split('/').at(-1) as string;
    // What the carrier reports at the end (as the sandbox and Twilio adapters write it).
    const started = new Date();
    await platform.telephony.deps.prisma.call.update({
      where: { id },
      data: { status: 'ringing', updatedAt: started, carrierCallId: 'SBabcdef0123456789' },
    });
    await platform.telephony.deps.prisma.call.update({
      where: { id },
      data: {
        status: 'completed',
        outcome: 'booked',
        endReason: 'hangup',
        durationSeconds: 125,
        costAmount: 6,
        costCurrency: 'USD',
        summary: 'Booked a demo for Tuesday.',
        transcript: 'Agent: Hello\nContact: Hi',
        transcriptTurns: [
          { speaker: 'agent', text: 'Hello, is now a good time?', offset_seconds: 0 },
          { speaker: 'contact', text: 'Sure, <b>go ahead</b>.', offset_seconds: 3.4 },
        ],
        recordingUrl: 'https://recordings.example.net/Recordings/RE0123.mp3',
        metadata: { campaign: 'spring', attempt: 2 },
        startedAt: started,
        endedAt: new Date(),
        updatedAt: new Date(),
      },
    });
    const page = await eventually('the delivery of call.queued in the page', async () => {
      const response = await owner.get(`${list}/${id}`);
      return response.body.includes('HTTP 200') ? response : undefined;
    });
    assert.equal(page.statusCode, 200);
    const csp = page.headers['content-security-policy'] as string;
    assert.match(csp, /media-src 'self' https:\/\/recordings.example.net(;|$)/);
    assert.match(csp, /default-src 'self'/);
    assert.match(
      page.body,
      /<audio id="call-recording" controls preload="none" src="https:\/\/recordings.example.net\/Recordings\/RE0123.mp3">/,
    );
    assert.match(page.body, /id="call-status">completed</);
    assert.deepEqual(
      [...page.body.matchAll(/<li><span class="badge [a-z]+">([a-z ]+)<\/span> <time/g)].map((match) => match[1]),
      ['queued', 'ringing', 'completed'],
    );
    assert.match(page.body, /<p class="speaker">Agent <span class="muted">0:00<\/span><\/p>\s*<p>Hello, is now a good time\?<\/p>/);
    assert.match(
      page.body,
      /<p class="speaker">Contact <span class="muted">0:03<\/span><\/p>\s*<p>Sure, &lt;b&gt;go ahead&lt;\/b&gt;.<\/p>/,
    );
    assert.match(page.body, /id="call-summary">Booked a demo for Tuesday.</);
    assert.match(page.body, /id="call-cost">\$0.06</);
    assert.match(page.body, /<dt>Duration<\/dt><dd>2:05<\/dd>/);
    assert.match(page.body, new RegExp(`<code>${workspace.id}</code>`));
    assert.match(page.body, /<dt>campaign<\/dt><dd><code>&quot;spring&quot;<\/code><\/dd>/);
    assert.match(page.body, /<dt>End reason<\/dt><dd>hangup<\/dd>/);
    assert.match(page.body, /<code>call.queued<\/code>/);
    assert.match(page.body, new RegExp(`<a href="/dashboard/webhooks/whk_[0-9A-Za-z]+">${receiver.url}</a>`));
    for (const region of ['call-overview', 'call-timeline', 'call-conversation', 'call-events']) {
      assert.match(page.body, new RegExp(`id="${region}" data-live="call" data-live-resource="${id}"`));
    }
    // A page without a recording keeps the console's policy as it is.
    const [plain] = (await seedCalls(orgId, [{}])) as [string];
    const other = await owner.get(`${list}/${plain}`);
    assert.equal((other.headers['content-security-policy'] as string).includes('media-src'), false);
    assert.match(other.body, /No recording./);
    // The same call through the API, for comparison: the console shows what telephony has.
    const api = await platform.gateway.deps.bus.call(telephonyRpc.getCall, await personIdentity(orgId, owner.userId), { id });
    assert.equal(api.workspace_id, workspace.id);
  });
});
