// The Do-not-call pages through the gateway, with the real telephony service, mcp (agents and approvals) and
// webhooks behind it: the list with its search and pages both ways, a number checked in words, adding (once
// per form) and removing after a confirmation page, which is a person's approval: the console removes at
// once, while an agent's removal through MCP still only asks a person. Changes fire the API's events and
// webhooks and are audited with the person as actor; members read everything and change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { type Receiver, startReceiver } from '@voice/kit/testing';
import type { PendingApproval } from '@voice/proto';
import { type Agent, connectAgent } from './support/approvals.js';
import { allEventsEndpoint } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';
import { addDncWithKey, follow, formKeyOf, hrefOf, idsIn, storeDnc } from './support/telephony-data.js';

const list = '/dashboard/do-not-call';
const check = (phone: string) => `${list}/check?phone=${encodeURIComponent(phone)}`;
const minutes = (n: number) => n * 60_000;

describe('the do-not-call pages, through the gateway', () => {
  let platform: Platform<'telephony' | 'mcp' | 'webhooks' | 'console'>;
  let receiver: Receiver;
  const agents: Agent[] = [];

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['telephony', 'mcp', 'webhooks', 'console'] });
  });
  after(async () => {
    for (const agent of agents) await agent.close();
    await platform?.close();
    await receiver?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.32');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }
  const entriesOf = (orgId: string) =>
    platform.telephony.deps.prisma.dncEntry.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } });
  const eventsOf = (type: string, id: string) =>
    receiver.requests.filter((request) => request.body.includes(`"${type}"`) && request.body.includes(id));

  test('the list: newest first, searched by digits or words of the reason, Older and Newer pages keeping the search; another organization’s entries never appear', async () => {
    const { orgId } = await platform.org();
    const other = await platform.org();
    const start = Date.now() - minutes(60);
    const ids = await storeDnc(
      platform.telephony.deps,
      orgId,
      Array.from({ length: 30 }, (_, n) => ({
        phone: `+1415556${String(1000 + n).padStart(4, '0')}`,
        channel: (['all', 'voice', 'sms'] as const)[n % 3],
        reason: n % 2 === 0 ? 'Asked not to be contacted' : 'Wrong number',
        at: new Date(start + minutes(n)),
      })),
    );
    const [otherId] = await storeDnc(platform.telephony.deps, other.orgId, [{ phone: '+14155561029', reason: 'Theirs', at: new Date() }]);
    const owner = await signedIn(orgId, 'owner');
    const first = await owner.get(list);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /<a href="\/dashboard\/do-not-call" aria-current="page">Do-not-call<\/a>/);
    const newestFirst = [...ids].reverse();
    assert.deepEqual(idsIn(first.body, 'dnc'), newestFirst.slice(0, 25));
    assert.doesNotMatch(first.body, new RegExp(`${otherId}|Theirs`));
    assert.match(first.body, /<div id="dnc-live" data-live="dnc" data-live-label="Do-not-call list">/);
    assert.match(first.body, /<script src="\/dashboard\/static\/live\.js" defer><\/script>/);
    // The newest entry (n = 29: SMS, "Wrong number") in words.
    const newest = new RegExp(`<tr id="dnc-${ids[29]}">([\\s\\S]*?)</tr>`).exec(first.body)?.[1] ?? '';
    assert.match(newest, /<a href="\/dashboard\/do-not-call\/check\?phone=%2B14155561029">\+1 415 556 1029<\/a>/);
    assert.match(newest, /<td>SMS<\/td>/);
    assert.match(newest, /<td>Wrong number<\/td>/);
    assert.match(newest, /The API, key key_storedbytest01/);
    assert.match(newest, new RegExp(`href="/dashboard/do-not-call/${ids[29]}/remove"`));

    const second = await follow(owner, first.body, 'dnc-older');
    assert.deepEqual(idsIn(second.body, 'dnc'), newestFirst.slice(25));
    const back = await follow(owner, second.body, 'dnc-newer');
    assert.deepEqual(idsIn(back.body, 'dnc'), newestFirst.slice(0, 25));

    // Digits of the number, with its formatting or without; words of the reason, in any case.
    assert.deepEqual(idsIn((await owner.get(`${list}?search=5561003`)).body, 'dnc'), [ids[3]]);
    assert.deepEqual(idsIn((await owner.get(`${list}?search=${encodeURIComponent('556-1003')}`)).body, 'dnc'), [ids[3]]);
    const wrong = await owner.get(`${list}?search=WRONG+number`);
    assert.deepEqual(idsIn(wrong.body, 'dnc'), newestFirst.filter((_, n) => n % 2 === 0).slice(0, 15));
    assert.match(wrong.body, /id="dnc-search" name="search" type="search" maxlength="100" placeholder="[^"]*" value="WRONG number"/);
    const asked = await owner.get(`${list}?search=asked`);
    assert.equal(idsIn(asked.body, 'dnc').length, 15);
    const pagedSearch = await owner.get(`${list}?search=556`);
    assert.match(hrefOf(pagedSearch.body, 'dnc-older') ?? '', /^\/dashboard\/do-not-call\?search=556&cursor=/);
    assert.deepEqual(idsIn((await follow(owner, pagedSearch.body, 'dnc-older')).body, 'dnc'), newestFirst.slice(25));
    assert.match((await owner.get(`${list}?search=nobody`)).body, /id="dnc-empty">No entry matches this search\./);
    assert.deepEqual(idsIn((await owner.get(`${list}?search=`)).body, 'dnc'), newestFirst.slice(0, 25), 'an empty search is everything');
    const tooLong = await owner.get(`${list}?search=${'x'.repeat(101)}`);
    assert.equal(tooLong.statusCode, 400);
    assert.match(tooLong.body, /The search is at most 100 characters/);
    assert.equal((await owner.get(`${list}?cursor=garbage`)).statusCode, 400);

    const empty = await signedIn((await platform.org()).orgId, 'owner');
    assert.match((await empty.get(list)).body, /id="dnc-empty">The do-not-call list is empty\./);
  });

  test('checking a number: the answer in words for calls and SMS, its entries; an invalid number is a 400 page on its field', async () => {
    const { orgId, key } = await platform.org();
    await addDncWithKey(platform.gateway.app, key, '+14155557001', 'all');
    await addDncWithKey(platform.gateway.app, key, '+14155557002', 'sms');
    await addDncWithKey(platform.gateway.app, key, '+14155557003', 'voice');
    await addDncWithKey(platform.gateway.app, key, '+14155557004', 'voice');
    await addDncWithKey(platform.gateway.app, key, '+14155557004', 'sms');
    const member = await signedIn(orgId, 'member');
    const answers: Array<[string, RegExp]> = [
      ['+14155557001', /\+1 415 555 7001 is blocked for calls and SMS: neither calls nor messages reach it\./],
      ['+14155557002', /\+1 415 555 7002 is blocked for SMS: messages to it are refused; calls are allowed\./],
      ['+14155557003', /\+1 415 555 7003 is blocked for calls: calls to it are refused; messages are allowed\./],
      ['+14155557004', /\+1 415 555 7004 is blocked for calls and SMS/],
      ['+14155557999', /\+1 415 555 7999 is not on the do-not-call list: calls and messages to it are allowed\./],
    ];
    for (const [phone, answer] of answers) {
      const page = await member.get(check(phone));
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, new RegExp(`id="dnc-answer">${answer.source}`));
    }
    const two = await member.get(check('+1 (415) 555-7004'));
    assert.equal(idsIn(two.body, 'dnc').length, 2, 'both entries of the number, typed with its formatting');
    assert.match(two.body, /href="\/dashboard\/messages\/conversation\?phone=%2B14155557004"/);
    assert.doesNotMatch(two.body, /\/remove"|id="dnc-add"/, 'a member gets no remove link and no add form');

    const blank = await member.get(`${list}/check`);
    assert.equal(blank.statusCode, 200);
    assert.doesNotMatch(blank.body, /id="dnc-answer"/);
    const invalid = await member.get(`${list}/check?phone=call-me`);
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.body, /<p id="dnc-check-phone-error" class="field-error">Enter the number in international form/);
    assert.match(invalid.body, /value="call-me" aria-describedby="dnc-check-phone-hint dnc-check-phone-error" aria-invalid="true"/);
  });

  test('adding: one entry per form however often it is submitted, the API’s event and webhook, audited as the person, named as who added it; refusals on their fields', async () => {
    const { orgId, key } = await platform.org();
    await allEventsEndpoint(platform, key, receiver.url);
    const admin = await signedIn(orgId, 'admin');
    const page = await admin.get(list);
    const formKey = formKeyOf(page.body);
    const fields = { phone: '+1 415 555 8001', channel: 'sms', reason: 'Asked by phone not to be texted', form_key: formKey };
    // Submitted twice at once (a double click): one entry, both answers the list.
    const added = await Promise.all([admin.post(list, fields), admin.post(list, fields)]);
    assert.deepEqual(
      added.map((response) => [response.statusCode, response.headers.location]),
      [
        [303, list],
        [303, list],
      ],
    );
    const shown = await admin.get(list);
    assert.match(shown.body, /<p class="toast" role="status">Number added to the do-not-call list\.<\/p>/);
    const [entry] = await entriesOf(orgId);
    assert.ok(entry);
    assert.deepEqual(
      [entry.phone, entry.channel, entry.reason, entry.source, entry.createdBy],
      ['+14155558001', 'sms', 'Asked by phone not to be texted', 'manual', admin.userId],
    );
    assert.match(shown.body, new RegExp(`<tr id="dnc-${entry.id}">[\\s\\S]*?<td>SMS</td>[\\s\\S]*?Person \\d+, in the console`));
    // The same form again later (a reload that posts again): nothing more.
    assert.equal((await admin.post(list, fields)).statusCode, 303);
    assert.equal((await entriesOf(orgId)).length, 1, 'one entry for one form');
    await receiver.waitFor(() => eventsOf('dnc.added', entry.id).length === 1);
    const records = await platform.gateway.deps.prisma.auditRecord.findMany({ where: { orgId, actorType: 'user' } });
    assert.ok(records.length >= 1);
    for (const record of records) {
      assert.deepEqual([record.keyId, record.method, record.path, record.status], [admin.userId, 'POST', list, 201]);
    }

    for (const [refused, field, words] of [
      [{ phone: '555-0123' }, 'phone', 'Enter the number in international form'],
      [{ phone: '+14155558002', channel: 'fax' }, 'channel', 'Choose what to block'],
      [{ phone: '+14155558002', reason: 'x'.repeat(501) }, 'reason', 'The reason is at most 500 characters'],
    ] as const) {
      const answer = await admin.post(list, { channel: 'all', ...refused, form_key: formKeyOf((await admin.get(list)).body) });
      assert.equal(answer.statusCode, 400, answer.body);
      assert.match(answer.body, new RegExp(`<p id="dnc-${field}-error" class="field-error">${words}`));
    }
    assert.equal((await entriesOf(orgId)).length, 1);
    const keyless = await admin.post(list, { phone: '+14155558003', channel: 'all' });
    assert.equal(keyless.statusCode, 400);
    assert.match(keyless.body, /This form is incomplete or out of date/);
  });

  test('removing: a confirmation page, then the entry is gone with its event and webhook, audited as the person; another organization’s or a malformed id is a 404 page on both', async () => {
    const { orgId, key } = await platform.org();
    const other = await platform.org();
    await allEventsEndpoint(platform, key, receiver.url);
    const { id } = await addDncWithKey(platform.gateway.app, key, '+14155559001', 'all');
    const theirs = await addDncWithKey(platform.gateway.app, other.key, '+14155559001', 'all');
    const owner = await signedIn(orgId, 'owner');
    const confirmation = await owner.get(`${list}/${id}/remove`);
    assert.equal(confirmation.statusCode, 200, confirmation.body);
    assert.match(confirmation.body, /<h1>Remove \+1 415 555 9001 from the do-not-call list\?<\/h1>/);
    assert.match(confirmation.body, /the platform may call and text \+1 415 555 9001 again/);
    assert.match(confirmation.body, new RegExp(`<form method="post" action="/dashboard/do-not-call/${id}/remove"`));
    assert.match(confirmation.body, /id="dnc-remove-confirm"/);
    assert.equal((await entriesOf(orgId)).length, 1, 'the confirmation page changes nothing');

    for (const path of [`${list}/${theirs.id}/remove`, `${list}/dnc_notarealentry0/remove`, `${list}/not-an-id/remove`]) {
      assert.equal((await owner.get(path)).statusCode, 404, path);
      const posted = await owner.post(path, {});
      assert.equal(posted.statusCode, 404, path);
      assert.match(posted.body, /Not found/);
    }
    assert.equal((await entriesOf(other.orgId)).length, 1, 'the other organization’s entry stays');

    const removed = await owner.post(`${list}/${id}/remove`, {});
    assert.equal(removed.statusCode, 303, removed.body);
    assert.equal(removed.headers.location, list);
    assert.match((await owner.get(list)).body, /role="status">Number removed from the do-not-call list\.</);
    assert.deepEqual(await entriesOf(orgId), []);
    await receiver.waitFor(() => eventsOf('dnc.removed', id).length === 1);
    const again = await owner.post(`${list}/${id}/remove`, {});
    assert.equal(again.statusCode, 404, 'already removed');
    const records = await platform.gateway.deps.prisma.auditRecord.findMany({
      where: { orgId, actorType: 'user', path: `${list}/${id}/remove` },
      orderBy: { createdAt: 'asc' },
    });
    assert.deepEqual(
      records.map((record) => [record.keyId, record.status]),
      [
        [owner.userId, 200],
        [owner.userId, 404],
      ],
    );
  });

  test('an agent’s removal through MCP still waits for a person’s approval, while a person’s confirmation removes at once; the person approves the agent’s request in the console', async () => {
    const { orgId, key } = await platform.org();
    const agent = await connectAgent(platform.url, key);
    agents.push(agent);
    await agent.call('service_add_dnc', { phone: '+14155559101', channel: 'all', reason: 'Asked the agent' });
    await agent.call('service_add_dnc', { phone: '+14155559102', channel: 'all' });
    const asked = (await agent.call('service_remove_dnc', { phone: '+14155559101' })) as PendingApproval;
    assert.equal(asked.status, 'pending_approval');
    assert.deepEqual(
      (await entriesOf(orgId)).map((entry) => entry.phone),
      ['+14155559101', '+14155559102'],
      'the agent removed nothing',
    );

    // A person needs no approval: their confirmation is it.
    const owner = await signedIn(orgId, 'owner');
    const [, direct] = await entriesOf(orgId);
    assert.ok(direct);
    await owner.get(`${list}/${direct.id}/remove`);
    assert.equal((await owner.post(`${list}/${direct.id}/remove`, {})).statusCode, 303);
    assert.deepEqual(
      (await entriesOf(orgId)).map((entry) => entry.phone),
      ['+14155559101'],
    );
    // The agent's request waits in the console, where the person approves it; then it runs.
    const approval = `/dashboard/approvals/${asked.approval_id}`;
    assert.match((await owner.get(approval)).body, /Remove \+14155559101 from the do-not-call list/);
    const decided = await owner.post(`${approval}/decide`, { decision: 'approve' });
    assert.equal(decided.statusCode, 200, decided.body);
    assert.match(decided.body, /id="approval-status-value">executed</);
    assert.deepEqual(await entriesOf(orgId), []);
  });

  test('members read the list and check numbers without any form, get no confirmation page, and their hand-made add and remove are 403', async () => {
    const { orgId, key } = await platform.org();
    const { id } = await addDncWithKey(platform.gateway.app, key, '+14155559201', 'all');
    const owner = await signedIn(orgId, 'owner');
    const ownersKey = formKeyOf((await owner.get(list)).body);
    const member = await signedIn(orgId, 'member');
    const page = await member.get(list);
    assert.equal(page.statusCode, 200);
    assert.deepEqual(idsIn(page.body, 'dnc'), [id]);
    assert.doesNotMatch(page.body, /id="dnc-add"|name="form_key"|\/remove"/);
    assert.match(page.body, /id="dnc-check-phone"/, 'members check numbers too');
    assert.equal((await member.get(`${list}/${id}/remove`)).statusCode, 403);
    assert.equal((await member.post(list, { phone: '+14155559202', channel: 'all', form_key: ownersKey })).statusCode, 403);
    assert.equal((await member.post(`${list}/${id}/remove`, {})).statusCode, 403);
    assert.deepEqual(
      (await entriesOf(orgId)).map((entry) => entry.id),
      [id],
    );
  });
});
