// The Messages pages through the gateway, with the real telephony service (sandbox carrier) and webhooks
// behind it (and mcp, whose count of waiting approvals every page asks for): the list and its filters (the
// overview's links use the same names), paging both ways, a conversation per number, and sending, which is
// the API's own operation (its events and webhooks, its refusals on the form's fields, once per form)
// audited with the person as actor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { type Receiver, startReceiver } from '@voice/kit/testing';
import { allEventsEndpoint } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';
import { addDncWithKey, follow, formKeyOf, hrefOf, idsIn, storeSms } from './support/telephony-data.js';

const list = '/dashboard/messages';
const conversation = (phone: string) => `${list}/conversation?phone=${encodeURIComponent(phone)}`;
const minutes = (n: number) => n * 60_000;

describe('the messages pages, through the gateway', () => {
  let platform: Platform<'telephony' | 'mcp' | 'webhooks' | 'console'>;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['telephony', 'mcp', 'webhooks', 'console'] });
  });
  after(async () => {
    await platform?.close();
    await receiver?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member', options: { timeZone?: string } = {}) {
    const person = await invitePerson(platform.console.deps, orgId, role);
    if (options.timeZone) {
      await platform.console.deps.prisma.user.update({ where: { id: person.userId }, data: { timeZone: options.timeZone } });
    }
    const browser = new Browser(platform.gateway.app, '198.51.100.31');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }
  const smsOf = (orgId: string, where: Record<string, unknown> = {}) =>
    platform.telephony.deps.prisma.sms.findMany({ where: { orgId, ...where }, orderBy: { createdAt: 'asc' } });

  test('the list: newest first with its columns, each row leading to its conversation; Older and Newer pages; another organization’s messages never appear', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const start = Date.now() - minutes(120);
    const ids = await storeSms(
      platform.telephony.deps,
      orgId,
      Array.from({ length: 30 }, (_, n) => ({
        direction: n % 2 === 0 ? ('outbound' as const) : ('inbound' as const),
        phone: `+1415555${String(1000 + n).padStart(4, '0')}`,
        body: `Message number ${n} ${'and more words '.repeat(n === 29 ? 10 : 0)}`,
        status: n === 28 ? ('blocked_dnc' as const) : undefined,
        segments: n === 0 ? 3 : 1,
        at: new Date(start + minutes(n)),
      })),
    );
    const [otherId] = await storeSms(platform.telephony.deps, other.orgId, [
      { direction: 'outbound', phone: '+14155551029', body: 'Not yours to read', at: new Date() },
    ]);
    const owner = await signedIn(orgId, 'owner');
    const first = await owner.get(list);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /<a href="\/dashboard\/messages" aria-current="page">Messages<\/a>/);
    assert.match(first.body, /<a href="\/dashboard\/do-not-call"[^>]*>Do-not-call<\/a>/);
    const newestFirst = [...ids].reverse();
    assert.deepEqual(idsIn(first.body, 'sms'), newestFirst.slice(0, 25));
    for (const column of ['Time', 'Direction', 'From', 'To', 'Message', 'Status', 'Segments', 'Cost']) {
      assert.match(first.body, new RegExp(`<th scope="col"[^>]*>${column}</th>`));
    }
    // The newest row: received from +1 415-555-1029, truncated, its conversation one click away.
    assert.match(
      first.body,
      /<a href="\/dashboard\/messages\/conversation\?phone=%2B14155551029">Message number 29 and more words (?:and more words ){3}[^<]*…<\/a>/,
    );
    // An outbound row leads to the number it was sent to.
    assert.match(first.body, /<a href="\/dashboard\/messages\/conversation\?phone=%2B14155551028">Message number 28/);
    assert.match(first.body, /<span class="badge warning" id="sms-status-[^"]+">blocked by DNC<\/span>/);
    assert.match(first.body, /<span class="badge success" id="sms-status-[^"]+">received<\/span>/);
    assert.match(first.body, /\$0\.01/);
    assert.doesNotMatch(first.body, new RegExp(`${otherId}|Not yours to read`));
    // A live region for new messages and moving statuses.
    assert.match(first.body, /<div id="messages-live" data-live="sms" data-live-label="Messages">/);
    assert.match(first.body, /<script src="\/dashboard\/static\/live\.js" defer><\/script>/);
    assert.equal(hrefOf(first.body, 'messages-newer'), undefined, 'nothing is newer than the first page');

    const second = await follow(owner, first.body, 'messages-older');
    assert.equal(second.statusCode, 200, second.body);
    assert.deepEqual(idsIn(second.body, 'sms'), newestFirst.slice(25));
    assert.equal(hrefOf(second.body, 'messages-older'), undefined, 'the last page');
    const back = await follow(owner, second.body, 'messages-newer');
    assert.deepEqual(idsIn(back.body, 'sms'), newestFirst.slice(0, 25), 'Newer retraces Older');
    assert.equal(hrefOf(back.body, 'messages-newer'), undefined);

    // The other organization's person sees theirs only.
    const stranger = await signedIn(other.orgId, 'owner');
    assert.deepEqual(idsIn((await stranger.get(list)).body, 'sms'), [otherId]);
  });

  test('a message’s page: its text, status, parts, cost and events, linked from the list and the conversation; another organization’s or a malformed id is a 404 page', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const [id] = await storeSms(platform.telephony.deps, orgId, [
      { direction: 'outbound', phone: '+14155550177', body: 'Your table for <two> is booked', segments: 2, at: new Date() },
    ]);
    const [otherId] = await storeSms(platform.telephony.deps, other.orgId, [
      { direction: 'outbound', phone: '+14155550177', body: 'Not yours to read', at: new Date() },
    ]);
    const page = `${list}/${id}`;
    const owner = await signedIn(orgId, 'owner');
    assert.match((await owner.get(list)).body, new RegExp(`<a href="${page}">`), 'the list links each message to its page');
    assert.match((await owner.get(conversation('+14155550177'))).body, new RegExp(`<a href="${page}">`), 'so does the conversation');
    const shown = await owner.get(page);
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /<h1[^>]*>Message to \+1 415 555 0177<\/h1>/);
    assert.match(shown.body, /<p class="chat-body" id="message-body">Your table for &lt;two&gt; is booked<\/p>/);
    assert.match(shown.body, /<dt>Parts<\/dt><dd>2 segments<\/dd>/);
    assert.match(shown.body, /id="message-no-events"/);
    assert.match(shown.body, /href="\/dashboard\/messages\/conversation\?phone=%2B14155550177"/);
    assert.doesNotMatch(shown.body, /Not yours to read/);
    const member = await signedIn(orgId, 'member');
    assert.equal((await member.get(page)).statusCode, 200, 'members read it too');
    for (const address of [`${list}/${otherId}`, `${list}/sms_${'x'.repeat(10)}`, `${list}/sms_${'a'.repeat(41)}`, `${list}/not-an-id`]) {
      const refused = await owner.get(address);
      assert.equal(refused.statusCode, 404, address);
      assert.doesNotMatch(refused.body, /Not yours to read/);
    }
  });

  test('filters: direction, status, lead and whole days in the person’s time zone, kept by the pages; malformed values are a 400 page naming the field', async () => {
    const { orgId } = await platform.org();
    const lead = 'lead_filterlead0001';
    // New York is UTC-4 from 8 March 2026: 10 March there runs from 04:00Z to 04:00Z the next day.
    const [beforeDay, firstOfDay, lastOfDay, nextDay] = await storeSms(platform.telephony.deps, orgId, [
      { direction: 'inbound', phone: '+14155552001', at: new Date('2026-03-10T03:59:00Z') },
      { direction: 'outbound', phone: '+14155552002', at: new Date('2026-03-10T04:00:00Z'), leadId: lead, status: 'failed' },
      { direction: 'inbound', phone: '+14155552003', at: new Date('2026-03-11T03:59:59Z'), leadId: lead },
      { direction: 'outbound', phone: '+14155552004', at: new Date('2026-03-11T04:00:00Z') },
    ]);
    const owner = await signedIn(orgId, 'owner', { timeZone: 'America/New_York' });
    const shown = async (query: string) => {
      const response = await owner.get(`${list}?${query}`);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      return idsIn(response.body, 'sms');
    };
    assert.deepEqual(await shown('from=2026-03-10&to=2026-03-10'), [lastOfDay, firstOfDay], 'both ends of the day, in New York');
    assert.deepEqual(await shown('from=2026-03-11'), [nextDay]);
    assert.deepEqual(await shown('to=2026-03-09'), [beforeDay]);
    assert.deepEqual(await shown('direction=inbound'), [lastOfDay, beforeDay]);
    assert.deepEqual(await shown('status=failed'), [firstOfDay]);
    assert.deepEqual(await shown(`lead_id=${lead}`), [lastOfDay, firstOfDay]);
    assert.deepEqual(await shown(`lead_id=${lead}&direction=outbound&from=2026-03-10&to=2026-03-10`), [firstOfDay]);
    // Empty values mean any, as the GET form sends them.
    assert.deepEqual(await shown('direction=&status=&lead_id=&from=&to=&cursor='), [nextDay, lastOfDay, firstOfDay, beforeDay]);
    const filtered = await owner.get(`${list}?direction=outbound&status=failed&from=2026-03-10`);
    assert.match(filtered.body, /<option value="outbound" selected>/);
    assert.match(filtered.body, /<option value="failed" selected>/);
    assert.match(filtered.body, /id="messages-from" name="from" type="date" value="2026-03-10"/);
    assert.match(filtered.body, /From \(day, America\/New_York\)/);
    const none = await owner.get(`${list}?status=undelivered`);
    assert.match(none.body, /id="messages-empty">No messages match these filters\./);

    for (const [query, field] of [
      ['direction=sideways', 'direction'],
      ['status=lost', 'status'],
      ['lead_id=someone', 'lead_id'],
      ['from=2026-13-01', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-03-11&to=2026-03-10', 'from'],
    ] as const) {
      const refused = await owner.get(`${list}?${query}`);
      assert.equal(refused.statusCode, 400, query);
      assert.match(refused.body, /That request was not valid/);
      assert.match(refused.body, new RegExp(`The ${field} (?:filter|date)`), `${query} names ${field}`);
    }
    const badCursor = await owner.get(`${list}?cursor=not-a-cursor`);
    assert.equal(badCursor.statusCode, 400);
  });

  test('a conversation: both directions oldest first, paged; its live region; an invalid or missing number is a 400 page, an unknown one an empty conversation; another organization’s messages never show', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const them = '+14155553001';
    const start = Date.now() - minutes(100);
    const ids = await storeSms(
      platform.telephony.deps,
      orgId,
      Array.from({ length: 25 }, (_, n) => ({
        direction: n % 2 === 0 ? ('inbound' as const) : ('outbound' as const),
        phone: them,
        body: `Turn ${n}`,
        at: new Date(start + minutes(n)),
      })),
    );
    await storeSms(platform.telephony.deps, orgId, [{ direction: 'inbound', phone: '+14155553002', body: 'Someone else', at: new Date() }]);
    await storeSms(platform.telephony.deps, other.orgId, [
      { direction: 'outbound', phone: them, body: 'Other organization to the same number', at: new Date() },
      { direction: 'inbound', phone: '+14155553999', body: 'Only the other organization knows this number', at: new Date() },
    ]);
    const owner = await signedIn(orgId, 'owner');
    const latest = await owner.get(conversation(them));
    assert.equal(latest.statusCode, 200, latest.body);
    assert.match(latest.body, /<h1>Conversation with <span class="nowrap">\+1 415 555 3001<\/span><\/h1>/);
    // The newest 20, oldest at the top like a chat.
    assert.deepEqual(idsIn(latest.body, 'sms'), ids.slice(5));
    assert.match(latest.body, /<li class="chat-message inbound" id="sms-[^"]+">\s*<p class="chat-who">\+1 415 555 3001 wrote<\/p>/);
    assert.match(latest.body, /<li class="chat-message outbound"/);
    assert.match(latest.body, /<div id="conversation-live" data-live="sms" data-live-label="Conversation">/);
    assert.doesNotMatch(latest.body, /Someone else|Other organization/);
    assert.match(latest.body, /id="message-send"/, 'an owner gets the send box');

    const older = await follow(owner, latest.body, 'conversation-older');
    assert.deepEqual(idsIn(older.body, 'sms'), ids.slice(0, 5));
    assert.equal(hrefOf(older.body, 'conversation-older'), undefined);
    const newer = await follow(owner, older.body, 'conversation-newer');
    assert.deepEqual(idsIn(newer.body, 'sms'), ids.slice(5));

    // An unencoded + arrives as a space: still the number.
    assert.deepEqual(idsIn((await owner.get(`${list}/conversation?phone=+14155553001`)).body, 'sms'), ids.slice(5));
    const unknown = await owner.get(conversation('+14155553999'));
    assert.equal(unknown.statusCode, 200);
    assert.match(unknown.body, /id="conversation-empty">No messages with \+1 415 555 3999 yet\./);
    assert.doesNotMatch(unknown.body, /Only the other organization/);
    for (const query of ['phone=12345', 'phone=%2Bnot-a-number', 'phone=', '']) {
      const refused = await owner.get(`${list}/conversation?${query}`);
      assert.equal(refused.statusCode, 400, query);
      assert.match(refused.body, /phone/);
    }
  });

  test('sending: the conversation with a toast, one SMS per form however often it is submitted, the API’s events and webhooks, audited as the person', async () => {
    const { orgId, key } = await platform.org();
    await allEventsEndpoint(platform, key, receiver.url);
    const owner = await signedIn(orgId, 'owner');
    const them = '+14155554001';
    const form = await owner.get(`${list}/new?to=${encodeURIComponent(them)}`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /id="message-to" name="to" type="tel" value="\+14155554001"/);
    const formKey = formKeyOf(form.body);

    const sent = await owner.post(list, { to: them, body: 'Your appointment is at 10:00.', form_key: formKey });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, conversation(them));
    const shown = await owner.get(String(sent.headers.location));
    assert.match(shown.body, /<p class="toast" role="status">Message queued for sending\.<\/p>/);
    assert.match(shown.body, /<p class="chat-body">Your appointment is at 10:00\.<\/p>/);
    // The same form again (a double click, a reload that posts again): the same message, not a second one.
    const again = await owner.post(list, { to: them, body: 'Your appointment is at 10:00.', form_key: formKey });
    assert.equal(again.statusCode, 303, again.body);
    assert.equal((await smsOf(orgId, { toNumber: them })).length, 1, 'one SMS for one form');

    // Two submits of another form at once: still one message.
    const secondKey = formKeyOf((await owner.get(conversation(them))).body);
    const both = await Promise.all([
      owner.post(list, { to: them, body: 'See you then.', form_key: secondKey, context: 'conversation' }),
      owner.post(list, { to: them, body: 'See you then.', form_key: secondKey, context: 'conversation' }),
    ]);
    assert.deepEqual(
      both.map((response) => [response.statusCode, response.headers.location]),
      [
        [303, conversation(them)],
        [303, conversation(them)],
      ],
    );
    const stored = await smsOf(orgId, { toNumber: them });
    assert.deepEqual(
      stored.map((sms) => [sms.body, sms.source]),
      [
        ['Your appointment is at 10:00.', 'api'],
        ['See you then.', 'api'],
      ],
    );
    // The sandbox carrier sends and delivers them; the webhook endpoint gets the API's events.
    for (const sms of stored) {
      await receiver.waitFor((requests) =>
        requests.some((request) => request.body.includes('"sms.delivered"') && request.body.includes(sms.id)),
      );
    }
    for (const sms of stored) {
      assert.ok(
        receiver.requests.some((request) => request.body.includes('"sms.sent"') && request.body.includes(sms.id)),
        `sms.sent of ${sms.id} delivered too`,
      );
    }
    // The form used again for another text is not sent: it says why, with a new form.
    const reused = await owner.post(list, { to: them, body: 'Something else entirely.', form_key: formKey });
    assert.equal(reused.statusCode, 409, reused.body);
    assert.match(reused.body, /This form already sent a different message/);
    assert.notEqual(formKeyOf(reused.body), formKey);
    assert.equal((await smsOf(orgId, { toNumber: them })).length, 2);

    // Audited with the person as actor, at the console's address, as the keys pages are.
    const records = await platform.gateway.deps.prisma.auditRecord.findMany({
      where: { orgId, actorType: 'user' },
      orderBy: { createdAt: 'asc' },
    });
    assert.ok(records.length >= 4, 'each send is recorded');
    for (const record of records.slice(0, 4)) {
      assert.deepEqual([record.keyId, record.method, record.path, record.status], [owner.userId, 'POST', '/dashboard/messages', 201]);
    }
    assert.deepEqual(
      records.filter((record) => record.status === 409).map((record) => record.path),
      ['/dashboard/messages'],
    );
  });

  test('refusals on the form: a do-not-call number in words, an invalid number and an overlong text on their fields, a form without its key', async () => {
    const { orgId, key } = await platform.org();
    const blocked = '+14155554666';
    await addDncWithKey(platform.gateway.app, key, blocked, 'sms');
    const owner = await signedIn(orgId, 'owner');
    const formKey = () => owner.get(`${list}/new`).then((page) => formKeyOf(page.body));

    const refused = await owner.post(list, { to: blocked, body: 'Hello again', form_key: await formKey() });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(
      refused.body,
      /<p id="message-to-error" class="field-error">\+1 415 555 4666 is on the do-not-call list for messages, so it cannot be sent one\./,
    );
    assert.match(
      refused.body,
      /id="message-to" name="to" type="tel" value="\+14155554666" aria-describedby="message-to-hint message-to-error" aria-invalid="true"/,
    );
    assert.match(refused.body, />Hello again<\/textarea>/, 'the text is kept');

    const invalid = await owner.post(list, { to: '12345', body: 'Hi', form_key: await formKey() });
    assert.equal(invalid.statusCode, 400, invalid.body);
    assert.match(invalid.body, /<p id="message-to-error" class="field-error">Enter the number in international form/);

    const long = await owner.post(list, { to: '+14155554002', body: 'x'.repeat(1601), form_key: await formKey() });
    assert.equal(long.statusCode, 400, long.body);
    assert.match(long.body, /<p id="message-body-error" class="field-error">A message is at most 1,600 characters; this one has 1,601\./);
    const empty = await owner.post(list, { to: '+14155554002', body: '   ', form_key: await formKey() });
    assert.equal(empty.statusCode, 400, empty.body);
    assert.match(empty.body, /Write the message before sending it\./);

    // From a conversation's send box, the conversation again, with the refusal above the box.
    const boxKey = formKeyOf((await owner.get(conversation(blocked))).body);
    const fromBox = await owner.post(list, { to: blocked, body: 'Hello', form_key: boxKey, context: 'conversation' });
    assert.equal(fromBox.statusCode, 422);
    assert.match(fromBox.body, /<h1>Conversation with/);
    assert.match(fromBox.body, /id="conversation-dnc">\+1 415 555 4666 is on the do-not-call list for messages/);
    assert.match(fromBox.body, /role="alert" id="message-to-error">\+1 415 555 4666 is on the do-not-call list for messages/);

    const keyless: Array<Record<string, string>> = [
      { to: '+14155554002', body: 'Hi' },
      { to: '+14155554002', body: 'Hi', form_key: 'short' },
    ];
    for (const fields of keyless) {
      const refusedForm = await owner.post(list, fields);
      assert.equal(refusedForm.statusCode, 400, refusedForm.body);
      assert.match(refusedForm.body, /This form is incomplete or out of date/);
    }
    assert.equal((await smsOf(orgId)).length, 0, 'nothing was sent');
  });

  test('members read the list and the conversations without any form, get no send page, and their hand-made send is 403', async () => {
    const { orgId } = await platform.org();
    const them = '+14155555001';
    await storeSms(platform.telephony.deps, orgId, [{ direction: 'inbound', phone: them, body: 'Hello there', at: new Date() }]);
    const owner = await signedIn(orgId, 'owner');
    const ownersKey = formKeyOf((await owner.get(conversation(them))).body);
    const member = await signedIn(orgId, 'member');
    const listed = await member.get(list);
    assert.equal(listed.statusCode, 200);
    assert.match(listed.body, /Hello there/);
    assert.doesNotMatch(listed.body, /id="messages-new"/);
    const thread = await member.get(conversation(them));
    assert.equal(thread.statusCode, 200);
    assert.match(thread.body, /Hello there/);
    assert.doesNotMatch(thread.body, /id="message-send"|name="form_key"/);
    assert.equal((await member.get(`${list}/new`)).statusCode, 403);
    const posted = await member.post(list, { to: them, body: 'From a member', form_key: ownersKey });
    assert.equal(posted.statusCode, 403, posted.body);
    assert.deepEqual(
      (await smsOf(orgId)).map((sms) => sms.body),
      ['Hello there'],
    );
  });
});
