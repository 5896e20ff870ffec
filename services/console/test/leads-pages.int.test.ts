// The leads pages without a browser, through the gateway, with the real leads, telephony, webhooks and gateway
// services behind the console: the list (search, filters, pages both ways, CSV, the saved view), a lead's page,
// adding, editing, notes, enrolling one lead or many, and deleting after a confirmation page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { newId } from '@voice/kit';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import { gatewayRpc } from '@voice/proto';
import { Browser, invitePerson } from './support/harness.js';

const list = '/dashboard/leads';
const dayMs = 86_400_000;

describe('the leads pages, through the gateway', () => {
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
    const { name } = await platform.console.deps.prisma.user.findUniqueOrThrow({ where: { id: person.userId } });
    return Object.assign(browser, { userId: person.userId, name });
  }

  /** Leads inserted into the leads service's table, as the API would have left them; newest last. */
  async function seedLeads(
    orgId: string,
    rows: Array<
      Partial<{
        name: string | null;
        phone: string | null;
        email: string | null;
        status: 'new' | 'contacted' | 'qualified' | 'won';
        source: 'api' | 'web' | 'referral';
        workspaceId: string;
        qualifiedAt: Date;
        createdAt: Date;
      }>
    >,
  ) {
    const now = Date.now();
    const data = rows.map((row, index) => ({
      id: newId('lead'),
      orgId,
      name: row.name === undefined ? `Lead ${index}` : row.name,
      phone: row.phone ?? null,
      email: row.email ?? null,
      status: row.status ?? ('new' as const),
      source: row.source ?? ('api' as const),
      workspaceId: row.workspaceId ?? null,
      qualifiedAt: row.qualifiedAt ?? null,
      createdAt: row.createdAt ?? new Date(now - (rows.length - index) * 1000),
    }));
    await platform.leads.deps.prisma.lead.createMany({ data });
    return data.map((row) => row.id);
  }

  async function createSequence(key: string, name: string) {
    const response = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/sequences',
      headers: bearer(key),
      payload: { name, steps: [{ type: 'wait', delay_seconds: 86_400 }] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return (response.json() as { id: string }).id;
  }

  const rowIds = (body: string) => [...body.matchAll(/<tr id="row-(lead_[0-9A-Za-z]+)"/g)].map((match) => match[1]);
  const link = (body: string, id: string) => {
    const href = new RegExp(`id="${id}" href="([^"]+)"`).exec(body)?.[1];
    assert.ok(href, `the page links ${id}`);
    return href.replaceAll('&amp;', '&');
  };
  const formKeyOf = (body: string) => /name="form_key" value="([^"]+)"/.exec(body)?.[1] as string;

  /** The identity the console calls the gateway with for a person (the audit log is read as them). */
  const personIdentity = (orgId: string, userId: string) => ({
    org_id: orgId,
    key_id: userId,
    user_id: userId,
    scope: 'read' as const,
    plan: 'pro' as const,
    request_id: newId('request'),
    monthly_used: 0,
    monthly_quota: 0,
  });
  const auditOf = async (orgId: string, userId: string) =>
    (
      await platform.gateway.deps.bus.call(gatewayRpc.listAuditLog, personIdentity(orgId, userId), { actor_type: 'user', limit: 20 })
    ).data.map((record) => `${record.key_id} ${record.path} ${record.status}`);

  test('the list: newest first, search by name, phone and e-mail, each filter, whole days in the person’s time zone', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'member');
    const now = Date.now();
    const created = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: bearer(key),
      payload: { name: 'North office' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const workspace = (created.json() as { id: string }).id;
    const [ada, grace, alan] = (await seedLeads(orgId, [
      {
        name: 'Ada Lovelace',
        phone: '+14155550101',
        email: 'ada@example.com',
        status: 'qualified',
        qualifiedAt: new Date(now),
        createdAt: new Date(now - 3 * dayMs),
      },
      {
        name: 'Grace Hopper',
        phone: '+14155550202',
        email: 'grace@navy.example',
        source: 'referral',
        createdAt: new Date(now - 2 * dayMs),
      },
      { name: 'Alan Turing', email: 'alan@example.org', status: 'contacted', workspaceId: workspace, createdAt: new Date(now - 60_000) },
    ])) as [string, string, string];
    const [theirs] = (await seedLeads(other.orgId, [{ name: 'Ada Elsewhere' }])) as [string];

    const all = await browser.get(list);
    assert.equal(all.statusCode, 200, all.body);
    assert.match(all.body, /<a href="\/dashboard\/leads" aria-current="page">Leads<\/a>/);
    assert.deepEqual(rowIds(all.body), [alan, grace, ada]);
    assert.equal(all.body.includes(theirs), false, "another organization's lead is not listed");
    assert.match(all.body, /data-live="lead"/);
    assert.match(all.body, new RegExp(`<a href="/dashboard/leads/${ada}">Ada Lovelace</a>`));

    const filtered = async (query: string) => {
      const response = await browser.get(`${list}?${query}`);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      return rowIds(response.body);
    };
    assert.deepEqual(await filtered('q=ada'), [ada], 'by name, whatever the case');
    assert.deepEqual(await filtered('q=%2B14155550202'), [grace], 'by phone');
    assert.deepEqual(await filtered('q=example.org'), [alan], 'by e-mail');
    assert.deepEqual(await filtered('status=contacted'), [alan]);
    assert.deepEqual(await filtered('qualified=yes'), [ada]);
    assert.deepEqual(await filtered('qualified=no'), [alan, grace]);
    assert.deepEqual(await filtered('source=referral'), [grace]);
    assert.deepEqual(await filtered(`workspace_id=${workspace}`), [alan]);
    assert.deepEqual(await filtered('q=&status=&qualified=&source=&workspace_id=&from=&to=&cursor='), [alan, grace, ada]);
    const day = (offset: number) => new Date(now - offset * dayMs).toISOString().slice(0, 10);
    assert.deepEqual(await filtered(`from=${day(2)}&to=${day(2)}`), [grace], 'one whole day, both ends included');
    assert.deepEqual(await filtered(`to=${day(2)}`), [grace, ada]);
    const nothing = await browser.get(`${list}?q=nobody`);
    assert.match(nothing.body, /id="leads-empty">No leads match these filters./);

    // A person far ahead of UTC: "today" starts at their midnight, hours before UTC's.
    await platform.console.deps.prisma.user.update({ where: { id: browser.userId }, data: { timeZone: 'Pacific/Kiritimati' } });
    const [late] = await seedLeads(orgId, [{ createdAt: new Date(`${day(10)}T11:30:00.000Z`) }]);
    const kiritimatiDay = new Date(Date.parse(`${day(10)}T11:30:00.000Z`) + 14 * 3_600_000).toISOString().slice(0, 10);
    assert.deepEqual(await filtered(`from=${kiritimatiDay}&to=${kiritimatiDay}`), [late]);
    assert.deepEqual(await filtered(`from=${day(10)}&to=${day(10)}`), []);

    // The saved view: qualified leads of the last week, what `service_recent_leads` answers.
    const recent = await browser.get(`${list}/recent-qualified`);
    assert.equal(recent.statusCode, 200, recent.body);
    assert.deepEqual(rowIds(recent.body), [ada]);
    assert.match(recent.body, /id="leads-view-recent-qualified" aria-current="page"/);
    assert.equal((await browser.get(`${list}/recent-qualified?cursor=damaged`)).statusCode, 400);
  });

  test('a malformed filter or cursor is a 400 page naming the field; the list pages both ways with Newer and Older', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'member');
    for (const query of [
      'status=sleeping',
      'qualified=maybe',
      'source=pigeon',
      'workspace_id=abc',
      `q=${'x'.repeat(201)}`,
      'from=2026-13-01',
      'to=yesterday',
      'from=1969-12-31',
      'from=2026-11-27&to=2026-11-01',
      `cursor=${'x'.repeat(600)}`,
      'cursor=not-a-cursor',
      'status=new&status=won',
    ]) {
      const response = await browser.get(`${list}?${query}`);
      assert.equal(response.statusCode, 400, query);
      const csv = await browser.get(`${list}/export.csv?${query}`);
      // The CSV is the whole filtered list from its start: a cursor that is well-formed text is not read.
      assert.equal(csv.statusCode, query === 'cursor=not-a-cursor' ? 200 : 400, `CSV ${query}`);
    }
    assert.match((await browser.get(`${list}?qualified=maybe`)).body, /Choose qualified or not qualified./);

    const ids = await seedLeads(
      orgId,
      Array.from({ length: 30 }, () => ({})),
    );
    const newestFirst = [...ids].reverse();
    const first = await browser.get(list);
    assert.deepEqual(rowIds(first.body), newestFirst.slice(0, 25));
    assert.equal(first.body.includes('id="leads-newer"'), false, 'the first page has no Newer link');
    const older = await browser.get(link(first.body, 'leads-older'));
    assert.deepEqual(rowIds(older.body), newestFirst.slice(25));
    assert.equal(older.body.includes('id="leads-older"'), false, 'the last page has no Older link');
    const newer = await browser.get(link(older.body, 'leads-newer'));
    assert.deepEqual(rowIds(newer.body), newestFirst.slice(0, 25));
    // Filters travel with the cursor, and a cursor made for other filters is refused.
    const filtered = await browser.get(`${list}?status=new&q=Lead`);
    const olderFiltered = link(filtered.body, 'leads-older');
    assert.match(olderFiltered, /^\/dashboard\/leads\?q=Lead&status=new&cursor=/);
    const cursor = new URL(olderFiltered, 'http://x').searchParams.get('cursor') as string;
    assert.equal((await browser.get(`${list}?status=won&cursor=${encodeURIComponent(cursor)}`)).statusCode, 400);
  });

  test('the empty list says what to do next; a member gets no add link, no checkboxes', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const empty = await owner.get(list);
    assert.match(empty.body, /id="leads-empty">No leads yet./);
    assert.match(empty.body, /<a href="\/dashboard\/leads\/new">Add one<\/a>, or/);
    assert.match(empty.body, /id="leads-new"/);
    const member = await signedIn(orgId, 'member');
    const theirs = await member.get(list);
    assert.match(theirs.body, /No leads yet./);
    assert.equal(theirs.body.includes('id="leads-new"'), false);
    await seedLeads(orgId, [{}]);
    await createSequence(key, 'Follow up');
    assert.match((await owner.get(list)).body, /type="checkbox" name="lead_id"/);
    assert.equal((await member.get(list)).body.includes('type="checkbox"'), false);
  });

  test('the CSV: the filtered list, every page, formula-safe cells', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const browser = await signedIn(orgId, 'member');
    const [formula, plain] = (await seedLeads(orgId, [
      { name: '=HYPERLINK("http://evil.example","x")', status: 'contacted' },
      { name: 'Plain, with a comma', phone: '+14155550303', email: 'plain@example.com', status: 'contacted' },
      { name: 'Not listed', status: 'won' },
    ])) as [string, string];
    const response = await browser.get(`${list}/export.csv?status=contacted`);
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.headers['content-type'] as string, /^text\/csv/);
    assert.match(response.headers['content-disposition'] as string, new RegExp(`attachment; filename="leads-${orgId}.csv"`));
    const lines = response.body.trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'created_at,id,name,phone,email,company,status,qualified_at,source,workspace_id,owner,tags,next_action,last_contacted_at',
    );
    assert.equal(lines.length, 3, 'the header and the two contacted leads');
    assert.match(
      lines[1] as string,
      new RegExp(`^[^,]+,${plain},"Plain, with a comma",'\\+14155550303,plain@example.com,,contacted,,api,,,,,$`),
    );
    assert.match(lines[2] as string, new RegExp(`${formula},"'=HYPERLINK\\(""http://evil.example"",""x""\\)",`));
    const page = await browser.get(`${list}?status=contacted&q=a`);
    assert.match(page.body, /id="leads-csv" class="button" href="\/dashboard\/leads\/export.csv\?q=a&amp;status=contacted"/);
  });

  test('add a lead: its page with a toast, audited; refusals on their field; a double submit makes one lead', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const form = await owner.get(`${list}/new`);
    assert.equal(form.statusCode, 200);
    const formKey = formKeyOf(form.body);
    const fields = {
      name: 'Katherine Johnson',
      phone: '+1 (415) 555-0404',
      email: 'kj@example.com',
      company: 'NASA',
      status: 'new',
      source: 'web',
      workspace_id: '',
      owner: '',
      tags: 'orbit, math',
      next_action: 'Send the quote',
      note: 'Met at the conference.',
      form_key: formKey,
    };
    // Two submits of one form at once: one lead, both answered with its page.
    const both = await Promise.all([owner.post(list, fields), owner.post(list, fields)]);
    assert.deepEqual(
      both.map((response) => response.statusCode),
      [303, 303],
      both[0]?.body,
    );
    const location = both[0]?.headers.location as string;
    assert.match(location, /^\/dashboard\/leads\/lead_[0-9A-Za-z]+$/);
    assert.equal(both[1]?.headers.location, location);
    const again = await owner.post(list, fields);
    assert.equal(again.headers.location, location, 'a later resubmit is the same lead');
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { orgId } }), 1);
    const id = location.split('/').at(-1) as string;

    const page = await owner.get(location);
    assert.match(page.body, /role="status">Lead added.<\/p>/);
    assert.match(page.body, /<h1>Katherine Johnson<\/h1>/);
    assert.match(page.body, /\+1 415 555 0404/);
    assert.match(page.body, /orbit, math/);
    assert.match(page.body, /Met at the conference./);
    assert.match(page.body, new RegExp(`id="lead-all-calls" href="/dashboard/calls\\?lead_id=${id}"`));
    assert.match(page.body, new RegExp(`id="lead-all-messages" href="/dashboard/messages\\?lead_id=${id}"`));
    assert.ok((await auditOf(orgId, owner.userId)).includes(`${owner.userId} /dashboard/leads 201`));

    const refusal = async (changes: Record<string, string>) => {
      const key = formKeyOf((await owner.get(`${list}/new`)).body);
      return owner.post(list, { ...fields, form_key: key, ...changes });
    };
    const phone = await refusal({ phone: '0415 555' });
    assert.equal(phone.statusCode, 400, phone.body);
    assert.match(phone.body, /id="lead-phone-error" class="field-error">Enter the number in international form/);
    assert.match(phone.body, /value="0415555"/, 'what was typed stays in the field');
    const email = await refusal({ email: 'not-an-address' });
    assert.equal(email.statusCode, 400);
    assert.match(email.body, /id="lead-email-error" class="field-error">Enter an e-mail address/);
    const workspace = await refusal({ workspace_id: `ws_${'b'.repeat(16)}` });
    assert.equal(workspace.statusCode, 404, workspace.body);
    assert.match(workspace.body, /id="lead-workspace-id-error" class="field-error">This organization has no workspace with this id./);
    const damaged = await owner.post(list, { ...fields, form_key: 'x' });
    assert.equal(damaged.statusCode, 400);
    assert.match(damaged.body, /The form is damaged; open it again./);
    const long = await refusal({ name: 'x'.repeat(500) });
    assert.equal(long.statusCode, 400, long.body);
    assert.match(long.body, /Write at most 400 characters./);
    const huge = await refusal({ name: 'x'.repeat(100_000) });
    assert.equal(huge.statusCode, 413, 'a body over the console’s limit');
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { orgId } }), 1, 'no refused lead was stored');
  });

  test('edit a lead: saved with a toast; a refusal on its field leaves the lead as it was', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const admin = await signedIn(orgId, 'admin');
    const [id] = (await seedLeads(orgId, [{ name: 'Mary Jackson', email: 'mary@example.com' }])) as [string];
    const form = await admin.get(`${list}/${id}/edit`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /name="name" type="text" value="Mary Jackson"/);
    const values = { name: 'Mary W. Jackson', phone: '', email: 'mary@example.com', company: '', status: 'qualified', source: 'api' };
    const saved = await admin.post(`${list}/${id}/edit`, { ...values, workspace_id: '', owner: 'Dorothy', tags: '', next_action: '' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `${list}/${id}`);
    const page = await admin.get(`${list}/${id}`);
    assert.match(page.body, /role="status">Lead saved.<\/p>/);
    assert.match(page.body, /<h1>Mary W. Jackson<\/h1>/);
    assert.match(page.body, /id="lead-status">qualified</);
    const refused = await admin.post(`${list}/${id}/edit`, { ...values, email: 'nope' });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /id="lead-email-error"/);
    const lead = await platform.leads.deps.prisma.lead.findUniqueOrThrow({ where: { id } });
    assert.equal(lead.email, 'mary@example.com');
    assert.equal(lead.owner, 'Dorothy');
    assert.ok((await auditOf(orgId, admin.userId)).includes(`${admin.userId} /dashboard/leads/${id}/edit 200`));
  });

  test("a lead's page: notes (added once per form), enrolling in a sequence, its sequences, invoices, projects and events", async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const endpoint = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: receiver.url, event_types: ['lead.created', 'lead.updated'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const created = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/leads',
      headers: bearer(key),
      payload: { name: 'Dorothy Vaughan', phone: '+14155550505' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = (created.json() as { id: string }).id;
    const sequence = await createSequence(key, 'Spring follow-up');
    const invoice = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/invoices',
      headers: bearer(key),
      payload: { lead_id: id, lines: [{ description: 'Consulting', unit_amount: 12_500 }] },
    });
    assert.equal(invoice.statusCode, 201, invoice.body);
    const project = await platform.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: bearer(key),
      payload: { lead_id: id, name: 'Roof repair' },
    });
    assert.equal(project.statusCode, 201, project.body);

    const page = await owner.get(`${list}/${id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /id="lead-no-notes"/);
    assert.match(page.body, new RegExp(`href="/dashboard/invoices/${(invoice.json() as { id: string }).id}"`));
    assert.match(page.body, /\$125.00/);
    assert.match(page.body, new RegExp(`href="/dashboard/projects/${(project.json() as { id: string }).id}">Roof repair<`));
    await eventually(
      'the delivery of lead.created on the lead’s page',
      async () => (await owner.get(`${list}/${id}`)).body.includes('<code>lead.created</code>'),
      { intervalMs: 250 },
    );

    const noteKey = formKeyOf(page.body);
    const notes = await Promise.all([
      owner.post(`${list}/${id}/notes`, { body: 'Called back, wants a quote.', form_key: noteKey }),
      owner.post(`${list}/${id}/notes`, { body: 'Called back, wants a quote.', form_key: noteKey }),
    ]);
    assert.deepEqual(
      notes.map((response) => response.statusCode),
      [303, 303],
    );
    assert.equal(await platform.leads.deps.prisma.leadNote.count({ where: { leadId: id } }), 1, 'a double submit adds one note');
    const withNote = await owner.get(`${list}/${id}`);
    assert.match(withNote.body, /role="status">Note added.<\/p>/);
    assert.match(withNote.body, new RegExp(`${owner.name} · `));
    assert.match(withNote.body, /Called back, wants a quote./);
    const emptyNote = await owner.post(`${list}/${id}/notes`, { body: '   ', form_key: formKeyOf(withNote.body) });
    assert.equal(emptyNote.statusCode, 400, emptyNote.body);
    assert.match(emptyNote.body, /id="lead-note-body-error"/);

    const enrolled = await owner.post(`${list}/${id}/enroll`, { sequence_id: sequence });
    assert.equal(enrolled.statusCode, 303, enrolled.body);
    const withEnrollment = await owner.get(`${list}/${id}`);
    assert.match(withEnrollment.body, /role="status">Enrolled in the sequence.<\/p>/);
    assert.match(withEnrollment.body, new RegExp(`<a href="/dashboard/sequences/${sequence}">Spring follow-up</a>`));
    assert.match(withEnrollment.body, /id="lead-enrollments-table"/);
    const unknown = await owner.post(`${list}/${id}/enroll`, { sequence_id: newId('sequence') });
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.match(unknown.body, /id="lead-enroll-sequence-error"/);
    const badSequence = await owner.post(`${list}/${id}/enroll`, { sequence_id: 'nope' });
    assert.equal(badSequence.statusCode, 400);
    assert.equal(await platform.leads.deps.prisma.enrollment.count({ where: { leadId: id } }), 1);
    const audit = await auditOf(orgId, owner.userId);
    assert.ok(audit.includes(`${owner.userId} /dashboard/leads/${id}/notes 201`), audit.join('\n'));
    assert.ok(audit.includes(`${owner.userId} /dashboard/leads/${id}/enroll 201`), audit.join('\n'));
  });

  test('enroll many from the list: the chosen leads, one enrollment each, back to the filtered list', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const [first, second, third] = (await seedLeads(orgId, [{}, {}, {}])) as [string, string, string];
    const [theirs] = (await seedLeads(other.orgId, [{}])) as [string];
    const sequence = await createSequence(key, 'Win-back');
    const page = await owner.get(`${list}?status=new`);
    assert.match(page.body, new RegExp(`<option value="${sequence}"[^>]*>Win-back</option>`));
    const returnTo = /name="return_to" value="([^"]+)"/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(returnTo, '/dashboard/leads?status=new');
    const enroll = (leadIds: string[], sequenceId = sequence) =>
      owner.post(`${list}/enroll`, [
        ['sequence_id', sequenceId],
        ['return_to', returnTo as string],
        ...leadIds.map((leadId) => ['lead_id', leadId] as [string, string]),
      ]);
    const done = await enroll([first, third]);
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/dashboard/leads?status=new');
    assert.match((await owner.get(done.headers.location as string)).body, /The chosen leads are enrolled in the sequence./);
    // Submitted again: a lead active in the sequence keeps its one enrollment.
    assert.equal((await enroll([first, third, first])).statusCode, 303);
    const enrollments = await platform.leads.deps.prisma.enrollment.findMany({ where: { orgId }, select: { leadId: true } });
    assert.deepEqual(enrollments.map((row) => row.leadId).sort(), [first, third].sort());
    assert.equal((await enroll([second])).statusCode, 303, 'one chosen lead arrives as one value');

    assert.equal((await enroll([])).statusCode, 400, 'none chosen');
    assert.match((await enroll([])).body, /Choose at least one lead with its checkbox./);
    assert.equal((await enroll(['lead_x'])).statusCode, 400);
    assert.equal((await enroll([second], 'seq_x')).statusCode, 400);
    assert.equal((await enroll([theirs])).statusCode, 404, "another organization's lead");
    assert.equal((await enroll([second], newId('sequence'))).statusCode, 404, 'an unknown sequence');
    const offsite = await owner.post(`${list}/enroll`, [
      ['sequence_id', sequence],
      ['return_to', 'https://evil.example/'],
      ['lead_id', second],
    ]);
    assert.equal(offsite.headers.location, '/dashboard/leads', 'never back to another site');
    assert.equal(await platform.leads.deps.prisma.enrollment.count({ where: { orgId } }), 3);
    assert.equal(await platform.leads.deps.prisma.enrollment.count({ where: { leadId: theirs } }), 0);
  });

  test('delete: after its confirmation page, audited with the person as actor', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const [id] = (await seedLeads(orgId, [{ name: 'Annie Easley' }])) as [string];
    const page = await owner.get(`${list}/${id}`);
    assert.match(page.body, new RegExp(`id="lead-delete" class="button" href="/dashboard/leads/${id}/delete"`));
    const confirm = await owner.get(`${list}/${id}/delete`);
    assert.equal(confirm.statusCode, 200, confirm.body);
    assert.match(confirm.body, /<h1>Delete Annie Easley\?<\/h1>/);
    assert.match(confirm.body, /id="lead-delete-confirm"/);
    assert.match(confirm.body, />Keep the lead</);
    const deleted = await owner.post(`${list}/${id}/delete`, {});
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, list);
    assert.match((await owner.get(list)).body, /role="status">Lead deleted.<\/p>/);
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { id } }), 0);
    assert.equal((await owner.get(`${list}/${id}`)).statusCode, 404);
    assert.equal((await owner.post(`${list}/${id}/delete`, {})).statusCode, 404, 'deleted already');
    assert.ok((await auditOf(orgId, owner.userId)).includes(`${owner.userId} /dashboard/leads/${id}/delete 200`));
  });

  test('a member reads every lead but gets no forms, and each hand-made POST is 403', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const member = await signedIn(orgId, 'member');
    const [id] = (await seedLeads(orgId, [{ name: 'Unchanged' }])) as [string];
    const sequence = await createSequence(key, 'Nurture');
    const page = await member.get(`${list}/${id}`);
    assert.equal(page.statusCode, 200);
    for (const hook of ['lead-edit', 'lead-delete', 'lead-note-form', 'lead-enroll-form']) {
      assert.equal(page.body.includes(`id="${hook}"`), false, hook);
    }
    for (const path of [`${list}/new`, `${list}/${id}/edit`, `${list}/${id}/delete`]) {
      assert.equal((await member.get(path)).statusCode, 403, path);
    }
    const key43 = 'a'.repeat(43);
    const writes: Array<[string, Record<string, string> | Array<[string, string]>]> = [
      [list, { name: 'Sneaky', form_key: key43 }],
      [`${list}/${id}/edit`, { name: 'Changed' }],
      [`${list}/${id}/delete`, {}],
      [`${list}/${id}/notes`, { body: 'Sneaky note', form_key: key43 }],
      [`${list}/${id}/enroll`, { sequence_id: sequence }],
      [
        `${list}/enroll`,
        [
          ['sequence_id', sequence],
          ['lead_id', id],
        ],
      ],
    ];
    for (const [path, fields] of writes) assert.equal((await member.post(path, fields)).statusCode, 403, path);
    const leads = await platform.leads.deps.prisma.lead.findMany({ where: { orgId }, select: { id: true, name: true } });
    assert.deepEqual(leads, [{ id, name: 'Unchanged' }]);
    assert.equal(await platform.leads.deps.prisma.leadNote.count({ where: { leadId: id } }), 0);
    assert.equal(await platform.leads.deps.prisma.enrollment.count({ where: { leadId: id } }), 0);
  });

  test("another organization's lead, or a malformed id, is a 404 page on every page and action", async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    const [theirs] = (await seedLeads(other.orgId, [{ name: 'Theirs' }])) as [string];
    const sequence = await createSequence(key, 'Ours');
    const key43 = 'b'.repeat(43);
    for (const id of [theirs, 'lead_x', 'not-a-lead', newId('lead')]) {
      for (const path of [`${list}/${id}`, `${list}/${id}/edit`, `${list}/${id}/delete`]) {
        assert.equal((await owner.get(path)).statusCode, 404, path);
      }
      const edit = await owner.post(`${list}/${id}/edit`, { name: 'Changed', status: 'new', source: 'api' });
      assert.equal(edit.statusCode, 404, `edit ${id}: ${edit.body}`);
      assert.equal((await owner.post(`${list}/${id}/delete`, {})).statusCode, 404, `delete ${id}`);
      assert.equal((await owner.post(`${list}/${id}/notes`, { body: 'x', form_key: key43 })).statusCode, 404, `note ${id}`);
      assert.equal((await owner.post(`${list}/${id}/enroll`, { sequence_id: sequence })).statusCode, 404, `enroll ${id}`);
    }
    const lead = await platform.leads.deps.prisma.lead.findUniqueOrThrow({ where: { id: theirs } });
    assert.equal(lead.name, 'Theirs');
    assert.equal(await platform.leads.deps.prisma.leadNote.count({ where: { leadId: theirs } }), 0);
    assert.equal(await platform.leads.deps.prisma.enrollment.count({ where: { leadId: theirs } }), 0);
  });
});
