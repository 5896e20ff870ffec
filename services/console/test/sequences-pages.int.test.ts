// The sequences pages without a browser, through the gateway, with the real leads service (its step worker
// off: WORKERS=outbox, so an enrollment stays at its first step and events are still published), webhooks
// and mcp behind the console: the list, a sequence's steps and enrollments paged by keyset, enrolling a lead
// once per form and unenrolling after a confirmation page, each audited with the person as actor and firing the
// API's `enrollment.*` webhooks; members read and change nothing; another organization's ids are 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { newId } from '@voice/kit';
import { eventually, type Receiver, startReceiver, testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { consoleActions } from './support/console-audit.js';
import { allEventsEndpoint } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';
import { follow, formKeyOf } from './support/telephony-data.js';

const list = '/dashboard/sequences';

describe('the sequences pages, through the gateway', () => {
  let platform: Platform<'leads' | 'mcp' | 'webhooks' | 'console'>;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['leads', 'mcp', 'webhooks', 'console'], leads: { WORKERS: 'outbox' } });
  });
  after(async () => {
    await platform?.close();
    await receiver?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.41');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return Object.assign(browser, { userId: person.userId });
  }

  /** An organization's leads service through NATS, as an API key of it would call it. */
  const leadsOf = (orgId: string) => {
    const identity = { ...testIdentity(), org_id: orgId };
    const bus = platform.console.deps.bus;
    return {
      sequence: (name: string) =>
        bus.call(leadsRpc.createSequence, identity, {
          name,
          description: 'After a first contact',
          steps: [
            { type: 'call', delay_seconds: 0 },
            { type: 'wait', delay_seconds: 93_600 },
            { type: 'sms', delay_seconds: 3_600, body: 'Hi {{first_name}}, shall we talk <today>?' },
          ],
        }),
      lead: async (name: string) => (await bus.call(leadsRpc.createLead, identity, { name, phone: '+14155550123' })).id,
      enroll: (sequenceId: string, leadIds: string[]) =>
        bus.call(leadsRpc.enroll, identity, { sequence_id: sequenceId, lead_ids: leadIds }),
      enrollments: async (sequenceId: string, leadId: string) =>
        (await bus.call(leadsRpc.listEnrollments, identity, { sequence_id: sequenceId, lead_id: leadId, limit: 100 })).data,
    };
  };

  const rowIds = (body: string, prefix: string) =>
    [...body.matchAll(new RegExp(`<tr id="row-(${prefix}_[0-9A-Za-z]+)"`, 'g'))].map((match) => match[1] as string);

  test('the list and a sequence: steps in words, enrollments by keyset with each lead linking to its page, filtered by status', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const first = await ours.sequence('Welcome');
    const second = await ours.sequence('Win back');
    const theirs = await leadsOf(other.orgId).sequence('Their sequence');
    const member = await signedIn(orgId, 'member');

    const page = await member.get(list);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<a href="\/dashboard\/sequences" aria-current="page">Sequences<\/a>/);
    assert.deepEqual(rowIds(page.body, 'seq'), [second.id, first.id], 'newest first');
    assert.doesNotMatch(page.body, new RegExp(theirs.id));
    assert.match(page.body, /3 · call → wait → SMS/);

    const leads: string[] = [];
    for (let n = 0; n < 30; n++) leads.push(await ours.lead(`Lead ${n}`));
    for (const lead of leads) await ours.enroll(first.id, [lead]);
    const sequence = await member.get(`${list}/${first.id}`);
    assert.equal(sequence.statusCode, 200, sequence.body);
    assert.match(sequence.body, /<h1>Welcome<\/h1>/);
    assert.match(sequence.body, /<li><strong>Call<\/strong> the lead, right away<\/li>/);
    assert.match(sequence.body, /<li><strong>Wait<\/strong> 1 day 2 hours<\/li>/);
    assert.match(
      sequence.body,
      /<strong>Text<\/strong> the lead, after 1 hour: <q class="step-body">Hi \{\{first_name\}\}, shall we talk &lt;today&gt;\?<\/q>/,
    );
    assert.match(sequence.body, /id="enrollments-live" data-live="enrollment"/);
    const enrollments = rowIds(sequence.body, 'enr');
    assert.equal(enrollments.length, 25);
    assert.match(
      sequence.body,
      new RegExp(`<a href="/dashboard/leads/${leads[29]}"><code>${leads[29]}</code></a>`),
      'the newest lead first, linked',
    );
    assert.match(sequence.body, /Step 1 of 3/);
    assert.equal(sequence.body.includes('id="enroll-lead"'), false, 'a member gets no enroll form');
    assert.equal(sequence.body.includes('Unenroll…'), false, 'a member gets no unenroll link');
    const older = await follow(member, sequence.body, 'enrollments-older');
    assert.equal(older.statusCode, 200, older.body);
    const rest = rowIds(older.body, 'enr');
    assert.equal(rest.length, 5);
    assert.equal(new Set([...enrollments, ...rest]).size, 30, 'every enrollment once across the pages');
    assert.equal(older.body.includes('id="enrollments-older"'), false);

    assert.match((await member.get(`${list}/${first.id}?status=stopped`)).body, /id="enrollments-empty">No stopped enrollments\./);
    assert.equal(rowIds((await member.get(`${list}/${first.id}?status=active`)).body, 'enr').length, 25);
    assert.equal(rowIds((await member.get(`${list}/${first.id}?status=`)).body, 'enr').length, 25, 'an empty status is any');
    assert.match((await member.get(`${list}/${second.id}`)).body, /id="enrollments-empty">No lead is enrolled yet\./);

    const empty = await signedIn((await platform.org()).orgId, 'owner');
    assert.match((await empty.get(list)).body, /id="sequences-empty">No sequences yet\./);
  });

  test('enroll a lead once per form, unenroll after the confirmation; refusals on the field; events, webhooks and the audit log', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const endpoint = await allEventsEndpoint(platform, key, receiver.url);
    assert.ok(endpoint.id);
    const ours = leadsOf(orgId);
    const sequence = await ours.sequence('Welcome');
    const lead = await ours.lead('Ada');
    const owner = await signedIn(orgId, 'admin');
    const path = `${list}/${sequence.id}`;

    const page = await owner.get(path);
    const formKey = formKeyOf(page.body);
    const enrolled = await owner.post(`${path}/enrollments`, { lead_id: ` ${lead} `, form_key: formKey });
    assert.equal(enrolled.statusCode, 303, enrolled.body);
    assert.equal(enrolled.headers.location, path);
    const after = await owner.get(path);
    assert.match(after.body, /role="status">Lead enrolled\.<\/p>/);
    const [enrollment] = rowIds(after.body, 'enr');
    assert.ok(enrollment);
    assert.match(after.body, /<span class="badge success">active<\/span>/);

    // The same form again (a double click, a reload of the POST), and twice at once: still one enrollment.
    const again = await Promise.all([
      owner.post(`${path}/enrollments`, { lead_id: lead, form_key: formKey }),
      owner.post(`${path}/enrollments`, { lead_id: lead, form_key: formKey }),
    ]);
    assert.deepEqual(
      again.map((response) => response.statusCode),
      [303, 303],
    );
    assert.equal((await ours.enrollments(sequence.id, lead)).length, 1);

    // Unenroll: the link, its confirmation page, then the POST.
    const unenrollHref = new RegExp(`id="unenroll-${enrollment}" href="([^"]+)"`).exec(after.body)?.[1];
    assert.equal(unenrollHref, `${path}/leads/${lead}/unenroll`);
    const confirm = await owner.get(unenrollHref);
    assert.equal(confirm.statusCode, 200, confirm.body);
    assert.match(confirm.body, /<h1>Stop Welcome for this lead\?<\/h1>/);
    assert.match(confirm.body, /the 3 remaining steps do not run/);
    assert.match(confirm.body, /id="unenroll-confirm"/);
    assert.match(confirm.body, />Keep the enrollment</);
    const stopped = await owner.post(unenrollHref, {});
    assert.equal(stopped.statusCode, 303, stopped.body);
    const afterStop = await owner.get(`${path}?status=stopped`);
    assert.match(afterStop.body, /role="status">Lead unenrolled: no further steps run for it\.<\/p>/);
    assert.deepEqual(rowIds(afterStop.body, 'enr'), [enrollment]);
    assert.match(afterStop.body, /Stopped at step 1 of 3, <time[^>]*>[^<]+<\/time> \(unenrolled\)/);
    assert.equal((await owner.post(unenrollHref, {})).statusCode, 404, 'stopped already: nothing to stop');
    assert.equal((await owner.get(unenrollHref)).statusCode, 404);

    // The first form submitted once more after the unenroll: its answer stands, no second enrollment starts.
    assert.equal((await owner.post(`${path}/enrollments`, { lead_id: lead, form_key: formKey })).statusCode, 303);
    assert.deepEqual(
      (await ours.enrollments(sequence.id, lead)).map((row) => row.status),
      ['stopped'],
    );

    // The API's events reach the organization's webhook endpoint.
    for (const type of ['enrollment.started', 'enrollment.stopped']) {
      await eventually(
        `${type} delivered`,
        () =>
          receiver.requests.some((request) => request.body.includes(`"${type}"`) && request.body.includes(enrollment as string)) ||
          undefined,
      );
    }

    // Refusals of the operation on the lead field, in words; nothing enrolled.
    const refused = async (leadId: string) =>
      owner.post(`${path}/enrollments`, { lead_id: leadId, form_key: formKeyOf((await owner.get(path)).body) });
    const unknown = await refused(newId('lead'));
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.match(unknown.body, /id="enroll-lead-error" class="field-error">This organization has no lead with this id\./);
    assert.match(unknown.body, /aria-invalid="true"/);
    const theirLead = await leadsOf((await platform.org()).orgId).lead('Not ours');
    const foreign = await refused(theirLead);
    assert.equal(foreign.statusCode, 404);
    assert.match(foreign.body, /id="enroll-lead-error" class="field-error">This organization has no lead with this id\./);
    const malformed = await refused('lead-42');
    assert.equal(malformed.statusCode, 400, malformed.body);
    assert.match(malformed.body, /id="enroll-lead-error" class="field-error">A lead id looks like lead_/);
    assert.match(malformed.body, /value="lead-42"/, 'what was typed stays in the field');
    assert.equal((await refused('')).statusCode, 400);
    assert.equal((await refused('x'.repeat(5000))).statusCode, 400, 'a huge value is a 400 page');
    const noKey = await owner.post(`${path}/enrollments`, { lead_id: lead });
    assert.equal(noKey.statusCode, 400);
    assert.match(noKey.body, /This form is incomplete or out of date/);
    assert.equal((await ours.enrollments(sequence.id, lead)).length, 1, 'no refused enrollment was made');

    // Audited with the person as actor: each enroll submit, the unenroll and its second try.
    const records = await consoleActions(platform.gateway.deps.bus, orgId, owner.userId);
    assert.ok(records.includes(`${owner.userId} POST ${path}/enrollments 201`), records.join('\n'));
    assert.ok(records.includes(`${owner.userId} POST ${path}/leads/${lead}/unenroll 200`), records.join('\n'));
    assert.ok(records.includes(`${owner.userId} POST ${path}/leads/${lead}/unenroll 404`), records.join('\n'));
  });

  test('members read and change nothing; another organization’s ids are 404 on every page and action; bad ids and cursors', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const ours = leadsOf(orgId);
    const sequence = await ours.sequence('Welcome');
    const lead = await ours.lead('Ada');
    await ours.enroll(sequence.id, [lead]);
    const theirs = leadsOf(other.orgId);
    const theirSequence = await theirs.sequence('Theirs');
    const theirLead = await theirs.lead('Theirs');
    await theirs.enroll(theirSequence.id, [theirLead]);
    const path = `${list}/${sequence.id}`;

    const member = await signedIn(orgId, 'member');
    await member.get(path);
    const refusedToMember = [
      await member.post(`${path}/enrollments`, { lead_id: lead, form_key: 'a'.repeat(43) }),
      await member.post(`${path}/leads/${lead}/unenroll`, {}),
      await member.get(`${path}/leads/${lead}/unenroll`),
    ];
    assert.deepEqual(
      refusedToMember.map((response) => response.statusCode),
      [403, 403, 403],
    );
    assert.deepEqual(
      (await ours.enrollments(sequence.id, lead)).map((row) => row.status),
      ['active'],
    );

    const owner = await signedIn(orgId, 'owner');
    const ownerPage = await owner.get(path);
    const formKey = formKeyOf(ownerPage.body);
    const foreign = [
      await owner.get(`${list}/${theirSequence.id}`),
      await owner.get(`${list}/${theirSequence.id}?status=active`),
      await owner.post(`${list}/${theirSequence.id}/enrollments`, { lead_id: lead, form_key: formKey }),
      await owner.get(`${list}/${theirSequence.id}/leads/${theirLead}/unenroll`),
      await owner.post(`${list}/${theirSequence.id}/leads/${theirLead}/unenroll`, {}),
      await owner.get(`${path}/leads/${theirLead}/unenroll`),
      await owner.post(`${path}/leads/${theirLead}/unenroll`, {}),
    ];
    assert.deepEqual(
      foreign.map((response) => response.statusCode),
      [404, 404, 404, 404, 404, 404, 404],
    );
    assert.match(foreign[0]?.body ?? '', /Your organization has no sequence with this id\./);
    assert.deepEqual(
      (await theirs.enrollments(theirSequence.id, theirLead)).map((row) => row.status),
      ['active'],
      'their enrollment is untouched',
    );

    for (const address of [`${list}/nothing_here`, `${list}/seq_${'x'.repeat(60)}`, `${path}/leads/not-a-lead/unenroll`]) {
      assert.equal((await owner.get(address)).statusCode, 404, address);
    }
    assert.equal((await owner.post(`${list}/seq_nope/enrollments`, { lead_id: lead, form_key: formKey })).statusCode, 404);
    for (const address of [
      `${list}?cursor=garbage`,
      `${path}?cursor=garbage`,
      `${list}?cursor=${'x'.repeat(600)}`,
      `${path}?status=paused`,
    ]) {
      const response = await owner.get(address);
      assert.equal(response.statusCode, 400, address);
      assert.match(response.headers['content-type'] as string, /^text\/html/);
    }
  });
});
