// The billing pages (invoices and projects) without a browser, through the gateway, with the real leads,
// webhooks, mcp and gateway services behind the console: lists with status filters and keyset pages, an
// invoice's page, drafting once per form, editing a draft with the leads service's refusals on their fields,
// sending (and paying, voiding, deleting) after a confirmation page that shows what goes out and to whom, a
// project updated and delivered; events and webhooks as the API's, audited with the person as actor; members
// read and change nothing; another organization's ids are 404 on every page and action.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { type Receiver, startReceiver } from '@voice/kit/testing';
import type { Invoice, Lead, PendingApproval, Project } from '@voice/proto';
import { type Agent, connectAgent } from './support/approvals.js';
import { allEventsEndpoint } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';
import { formKeyOf, hrefOf } from './support/telephony-data.js';

const invoices = '/dashboard/invoices';
const projects = '/dashboard/projects';

describe('the billing pages, through the gateway', () => {
  let platform: Platform<'leads' | 'mcp' | 'webhooks' | 'console'>;
  let receiver: Receiver;
  const agents: Agent[] = [];

  before(async () => {
    receiver = await startReceiver(() => 200);
    platform = await startPlatform({ services: ['telephony', 'leads', 'mcp', 'webhooks', 'console'] });
  });
  after(async () => {
    for (const agent of agents) await agent.close();
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

  /** A request to the leads API with the organization's key, as a customer's code makes it. */
  async function api<T>(key: string, method: 'POST' | 'GET', url: string, payload?: object): Promise<T> {
    const response = await platform.gateway.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: bearer(key),
      ...(payload ? { payload } : {}),
    });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
    return response.json() as T;
  }
  const newLead = (key: string, name = 'Ada Lovelace') =>
    api<Lead>(key, 'POST', '/leads', { name, email: 'ada@example.com', phone: '+14155550142', company: 'Analytical Engines' });
  const newInvoice = (key: string, leadId: string, lines = [{ description: 'Consulting', quantity: 2, unit_amount: 5000 }]) =>
    api<Invoice>(key, 'POST', '/invoices', { lead_id: leadId, lines });
  const newProject = (key: string, leadId: string, name = 'Website redesign') =>
    api<Project>(key, 'POST', '/projects', {
      lead_id: leadId,
      name,
      deliverables: [{ name: 'Mockups', url: 'https://example.com/mockups', done: true }, { name: 'Launch' }],
    });
  const invoicesOf = (orgId: string) => platform.leads.deps.prisma.invoice.findMany({ where: { orgId }, orderBy: { createdAt: 'asc' } });
  const rows = (body: string, kind: 'invoice' | 'project') =>
    [...body.matchAll(new RegExp(`<tr id="${kind}-(${kind === 'invoice' ? 'inv' : 'prj'}_[0-9A-Za-z]+)"`, 'g'))].map((match) => match[1]);
  const eventsOf = (type: string, id: string) =>
    receiver.requests.filter((request) => request.body.includes(`"${type}"`) && request.body.includes(id));
  const auditOf = (orgId: string, path: string) =>
    platform.gateway.deps.prisma.auditRecord.findMany({ where: { orgId, actorType: 'user', path }, orderBy: { createdAt: 'asc' } });

  /** The fields of a draft form: a lead, and lines by row (rows left out stay blank). */
  function draftFields(formKey: string, leadId: string, lines: Record<number, [string, string, string, string]>, extra = {}) {
    const fields: Record<string, string> = { form_key: formKey, rows: '5', lead_id: leadId, currency: 'USD', due_date: '', memo: '' };
    for (const [row, [description, quantity, price, tax]] of Object.entries(lines)) {
      Object.assign(fields, {
        [`lines.${row}.description`]: description,
        [`lines.${row}.quantity`]: quantity,
        [`lines.${row}.unit_price`]: price,
        [`lines.${row}.tax_rate`]: tax,
      });
    }
    return { ...fields, ...extra };
  }

  test('the invoices list: newest first, filtered by status and lead, 25 a page with Older keeping the filters; malformed filters and cursors are 400 pages', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const lead = await newLead(key);
    const second = await newLead(key, 'Grace Hopper');
    const made: Invoice[] = [];
    for (let n = 0; n < 28; n++) made.push(await newInvoice(key, n % 2 === 0 ? lead.id : second.id));
    const sent = await api<Invoice>(key, 'POST', `/invoices/${made[3]?.id}/send`);
    const theirs = await newInvoice(other.key, (await newLead(other.key)).id);
    const owner = await signedIn(orgId, 'owner');

    const first = await owner.get(invoices);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /<a href="\/dashboard\/invoices" aria-current="page">Billing<\/a>/);
    const firstRows = rows(first.body, 'invoice');
    assert.equal(firstRows.length, 25);
    assert.equal(first.body.includes(theirs.id), false, 'another organization’s invoice is not listed');
    assert.match(first.body, /\$100\.00/, 'totals in the person’s format');
    const olderHref = hrefOf(first.body, 'invoices-older');
    assert.ok(olderHref);
    const older = await owner.get(olderHref);
    const olderRows = rows(older.body, 'invoice');
    assert.equal(olderRows.length, 3);
    assert.deepEqual(new Set([...firstRows, ...olderRows]), new Set(made.map((invoice) => invoice.id)), 'every invoice once');
    assert.equal(older.body.includes('id="invoices-older"'), false);
    assert.deepEqual(rows((await owner.get(`${invoices}?status=sent`)).body, 'invoice'), [sent.id]);
    const byLead = await owner.get(`${invoices}?lead_id=${second.id}&status=draft`);
    assert.equal(rows(byLead.body, 'invoice').length, 13);
    assert.deepEqual(rows((await owner.get(`${invoices}?status=&lead_id=&cursor=`)).body, 'invoice'), firstRows, 'empty values mean any');
    const paged = await owner.get(`${invoices}?status=draft`);
    assert.match(hrefOf(paged.body, 'invoices-older') ?? '', /^\/dashboard\/invoices\?status=draft&cursor=/);
    assert.match((await owner.get(`${invoices}?status=void`)).body, /id="invoices-empty">No invoices match these filters\./);

    for (const [query, words] of [
      ['status=lost', /The status filter must be one of draft, sent, paid, void/],
      ['lead_id=abc', /The lead_id filter must be a lead id/],
      ['cursor=not-a-cursor', /cursor/],
      [`cursor=${'x'.repeat(600)}`, /The page link is damaged/],
    ] as const) {
      const refused = await owner.get(`${invoices}?${query}`);
      assert.equal(refused.statusCode, 400, query);
      assert.match(refused.body, words, query);
    }
    const wrongFilters = await owner.get(`${invoices}?status=sent&cursor=${encodeURIComponent(olderHref.split('cursor=')[1] ?? '')}`);
    assert.equal(wrongFilters.statusCode, 400, 'a cursor of other filters');

    const empty = await signedIn((await platform.org({ plan: 'pro' })).orgId, 'owner');
    const nothing = await empty.get(invoices);
    assert.match(nothing.body, /id="invoices-empty">No invoices yet\./);
    assert.match(nothing.body, /<a href="\/dashboard\/invoices\/new">Draft one<\/a>/);
  });

  test('drafting: a lead preset from the address, one invoice however often the form is submitted, totals computed by the leads service and shown in the person’s locale', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const lead = await newLead(key);
    const admin = await signedIn(orgId, 'admin');
    const form = await admin.get(`${invoices}/new?lead_id=${lead.id}`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, new RegExp(`id="invoice-lead" name="lead_id" type="text" value="${lead.id}"`));
    assert.equal([...form.body.matchAll(/<fieldset class="line-row"/g)].length, 5, 'five rows without JavaScript');
    const formKey = formKeyOf(form.body);

    // More rows: the same form again with five more, what was typed kept, nothing drafted.
    const more = await admin.post(invoices, draftFields(formKey, lead.id, { 0: ['Typed', '1', '1', ''] }, { more: '1' }));
    assert.equal(more.statusCode, 200, more.body);
    assert.equal([...more.body.matchAll(/<fieldset class="line-row"/g)].length, 10);
    assert.match(more.body, /name="lines\.0\.description" type="text" value="Typed"/);
    assert.equal(formKeyOf(more.body), formKey, 'the key is kept: nothing was drafted yet');
    assert.deepEqual(await invoicesOf(orgId), []);

    // Row 0 and row 3 filled, rows between blank: two lines. 3 × 3.33 at 8.25% is 9.99 + 0.82 (rounded per line).
    const fields = draftFields(formKey, lead.id, { 0: ['Design work', '3', '3.33', '8.25'], 3: ['Hosting', '1', '1200', ''] });
    const answers = await Promise.all([admin.post(invoices, fields), admin.post(invoices, fields)]);
    const [made] = await invoicesOf(orgId);
    assert.ok(made);
    assert.deepEqual(
      answers.map((answer) => [answer.statusCode, answer.headers.location]),
      [
        [303, `${invoices}/${made.id}`],
        [303, `${invoices}/${made.id}`],
      ],
    );
    assert.equal((await admin.post(invoices, fields)).statusCode, 303, 'the same form later: the same draft');
    assert.equal((await invoicesOf(orgId)).length, 1, 'one invoice for one form');
    assert.deepEqual([made.subtotal, made.tax, made.total], [120_999n, 82n, 121_081n]);

    const page = await admin.get(`${invoices}/${made.id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /role="status">Invoice drafted\.</);
    assert.match(page.body, /id="invoice-status">draft</);
    assert.match(page.body, /Ada Lovelace/);
    assert.match(page.body, /<th scope="row">Design work<\/th>[\s\S]*?\$3\.33[\s\S]*?8\.25%[\s\S]*?\$9\.99[\s\S]*?\$0\.82[\s\S]*?\$10\.81/);
    assert.match(page.body, /id="invoice-total">\$1,210\.81</);
    assert.match(page.body, /id="invoice-no-events">No webhook endpoint was sent this invoice's events\./);
    assert.match(page.body, /id="invoice-send"/);
    const german = await admin.get(`${invoices}/${made.id}`, { 'accept-language': 'de-DE,de;q=0.9' });
    const euroStyle = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'USD' }).format(1210.81);
    assert.ok(german.body.includes(`id="invoice-total">${euroStyle}<`), `money in the person’s locale: ${euroStyle}`);

    // The same form with other lines: the key was used for another invoice.
    const changed = await admin.post(invoices, draftFields(formKey, lead.id, { 0: ['Something else', '1', '5', ''] }));
    assert.equal(changed.statusCode, 409, changed.body);
    assert.match(changed.body, /This form already drafted a different invoice/);
    assert.equal((await invoicesOf(orgId)).length, 1);
    const keyless = await admin.post(invoices, { lead_id: lead.id, 'lines.0.description': 'x', 'lines.0.unit_price': '1' });
    assert.equal(keyless.statusCode, 400);
    assert.match(keyless.body, /This form is incomplete or out of date/);
    assert.equal((await admin.get(`${invoices}/new?lead_id=lead_bad`)).statusCode, 400, 'a malformed preset lead');
    const records = await auditOf(orgId, invoices);
    assert.ok(records.length >= 1);
    for (const record of records) assert.equal(record.keyId, admin.userId);
  });

  test('the leads service’s refusals land on their fields (a line’s on its own row); a huge value is refused whole; nothing half-written', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const lead = await newLead(key);
    const owner = await signedIn(orgId, 'owner');
    const widget: Record<number, [string, string, string, string]> = { 0: ['Widget', '1', '5', ''] };
    const refusals: Array<[Record<number, [string, string, string, string]>, Record<string, string>, string, RegExp, number]> = [
      [{ 2: ['Widget', '1', 'twelve', ''] }, {}, 'line-2-unit_price', /Enter the unit price in USD as a number, e\.g\. 12\.50/, 400],
      [
        { 1: ['Widget', '1', '12.505', ''] },
        {},
        'line-1-unit_price',
        /Enter the unit price in USD as a number, e\.g\. 12\.50, with at most 2 decimals\./,
        400,
      ],
      [{ 0: ['', '1', '5', ''] }, {}, 'line-0-description', /Describe the line/, 400],
      [
        { 1: ['Widget', '1.2345', '5', ''] },
        {},
        'line-1-quantity',
        /Enter a quantity above 0 and up to 1,000,000, with at most 3 decimals/,
        400,
      ],
      [{ 4: ['Widget', '1', '5', '120'] }, {}, 'line-4-tax_rate', /Enter the tax rate in percent, from 0 to 100/, 400],
      [widget, { currency: 'DOLLARS' }, 'invoice-currency', /Enter a three-letter currency code/, 400],
      [widget, { due_date: '2026-13-01' }, 'invoice-due', /Enter the due date/, 400],
      [widget, { memo: 'm'.repeat(2001) }, 'invoice-memo', /The memo is at most 2,000 characters/, 400],
      [widget, { lead_id: 'lead_00000000000000000000' }, 'invoice-lead', /This organization has no lead with this id\./, 404],
      [widget, { lead_id: 'someone' }, 'invoice-lead', /A lead id looks like lead_/, 400],
    ];
    for (const [lines, extra, fieldId, words, status] of refusals) {
      const formKey = formKeyOf((await owner.get(`${invoices}/new`)).body);
      const answer = await owner.post(invoices, draftFields(formKey, lead.id, lines, extra));
      assert.equal(answer.statusCode, status, fieldId);
      assert.match(answer.body, new RegExp(`<p id="${fieldId}-error" class="field-error">${words.source}`), fieldId);
      assert.match(answer.body, new RegExp(`id="${fieldId}"[^>]*aria-invalid="true"`), fieldId);
      assert.notEqual(formKeyOf(answer.body), formKey, 'a refused form comes back with a new key');
    }
    const huge = await owner.post(
      invoices,
      draftFields(formKeyOf((await owner.get(`${invoices}/new`)).body), lead.id, { 0: ['x'.repeat(70_000), '1', '1', ''] }),
    );
    assert.equal(huge.statusCode, 413, 'over the body limit');
    assert.deepEqual(await invoicesOf(orgId), [], 'nothing was drafted');
  });

  test('editing a draft, then sending it after a confirmation page that shows what goes out and to whom: invoice.sent reaches the webhook endpoint, audited as the person; then paid; void and delete others', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const endpoint = await allEventsEndpoint(platform, key, receiver.url);
    const lead = await newLead(key);
    const draft = await newInvoice(key, lead.id);
    const owner = await signedIn(orgId, 'owner');
    const path = `${invoices}/${draft.id}`;

    const edit = await owner.get(`${path}/edit`);
    assert.equal(edit.statusCode, 200, edit.body);
    assert.match(edit.body, /name="lines\.0\.description" type="text" value="Consulting"/);
    assert.match(edit.body, /name="lines\.0\.unit_price" type="text" value="50\.00"/);
    const refused = await owner.post(path, {
      rows: '5',
      lead_id: lead.id,
      currency: 'USD',
      'lines.0.description': 'Consulting',
      'lines.0.quantity': '0',
      'lines.0.unit_price': '50',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /<p id="line-0-quantity-error" class="field-error">Enter a quantity above 0/);
    const saved = await owner.post(path, {
      rows: '5',
      lead_id: lead.id,
      currency: 'EUR',
      due_date: '2026-12-31',
      memo: 'Thank you!',
      'lines.0.description': 'Consulting',
      'lines.0.quantity': '1.5',
      'lines.0.unit_price': '80',
      'lines.0.tax_rate': '20',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, path);
    const page = await owner.get(path);
    assert.match(page.body, /role="status">Draft saved\.</);
    assert.match(page.body, /id="invoice-total">€144\.00</, '1.5 × 80 + 20% tax');
    assert.match(page.body, /Dec 31, 2026/);

    const confirmation = await owner.get(`${path}/send`);
    assert.equal(confirmation.statusCode, 200, confirmation.body);
    assert.match(confirmation.body, new RegExp(`<h1>Send the invoice ${draft.id} for €144\\.00\\?</h1>`));
    assert.match(confirmation.body, /What goes out, and to whom/);
    assert.match(confirmation.body, /Ada Lovelace[\s\S]*ada@example\.com[\s\S]*\+1 415 555 0142[\s\S]*Analytical Engines/);
    assert.match(confirmation.body, /Thank you!/);
    assert.match(confirmation.body, new RegExp(`<a href="/dashboard/webhooks/${endpoint.id}">${receiver.url.replaceAll('.', '\\.')}</a>`));
    assert.match(confirmation.body, new RegExp(`<form method="post" action="${path}/send"`));
    assert.equal((await invoicesOf(orgId))[0]?.status, 'draft', 'the confirmation page changes nothing');

    const sent = await owner.post(`${path}/send`, {});
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, path);
    const after = await owner.get(path);
    assert.match(after.body, /role="status">Invoice sent\.</);
    assert.match(after.body, /id="invoice-status">sent</);
    assert.doesNotMatch(after.body, /id="invoice-edit"|id="invoice-send"|id="invoice-delete"/);
    await receiver.waitFor(() => eventsOf('invoice.sent', draft.id).length === 1);
    // The invoice's page lists the event and its delivery, as a call's page does.
    let withEvents = after.body;
    for (let tries = 0; tries < 50 && !withEvents.includes('invoice-events-table'); tries++) withEvents = (await owner.get(path)).body;
    assert.match(withEvents, /id="invoice-events-table"[\s\S]*<code>invoice\.sent<\/code>/);
    const again = await owner.post(`${path}/send`, {});
    assert.equal(again.statusCode, 409, 'sent once');
    assert.equal((await owner.get(`${path}/edit`)).statusCode, 409);
    assert.equal((await owner.post(path, { lead_id: lead.id, currency: 'USD' })).statusCode, 409, 'a sent invoice no longer changes');
    assert.deepEqual(
      (await auditOf(orgId, `${path}/send`)).map((record) => [record.keyId, record.method, record.status]),
      [
        [owner.userId, 'POST', 200],
        [owner.userId, 'POST', 409],
      ],
    );

    assert.match((await owner.get(`${path}/pay`)).body, /id="invoice-pay-confirm"/);
    assert.equal((await owner.post(`${path}/pay`, {})).statusCode, 303);
    assert.match((await owner.get(path)).body, /id="invoice-status">paid</);

    const other = await newInvoice(key, lead.id);
    assert.equal((await owner.post(`${invoices}/${other.id}/void`, {})).statusCode, 303);
    assert.match((await owner.get(`${invoices}/${other.id}`)).body, /id="invoice-status">void</);
    const deletable = await newInvoice(key, lead.id);
    assert.match((await owner.get(`${invoices}/${deletable.id}/delete`)).body, /id="invoice-delete-confirm"/);
    const deleted = await owner.post(`${invoices}/${deletable.id}/delete`, {});
    assert.equal(deleted.headers.location, invoices);
    assert.equal((await owner.get(`${invoices}/${deletable.id}`)).statusCode, 404);
    const empty = await newInvoice(key, lead.id, []);
    const unsendable = await owner.post(`${invoices}/${empty.id}/send`, {});
    assert.equal(unsendable.statusCode, 400);
    assert.match(unsendable.body, /The invoice has no lines/);
  });

  test('an agent’s service_send_invoice through MCP only asks a person, while the person’s confirmation sends at once', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const lead = await newLead(key);
    const [first, second] = [await newInvoice(key, lead.id), await newInvoice(key, lead.id)];
    const agent = await connectAgent(platform.url, key);
    agents.push(agent);
    const asked = (await agent.call('service_send_invoice', { invoice_id: first.id })) as PendingApproval;
    assert.equal(asked.status, 'pending_approval');
    const owner = await signedIn(orgId, 'owner');
    await owner.get(`${invoices}/${second.id}/send`);
    assert.equal((await owner.post(`${invoices}/${second.id}/send`, {})).statusCode, 303);
    const statuses = new Map((await invoicesOf(orgId)).map((invoice) => [invoice.id, invoice.status]));
    assert.deepEqual([statuses.get(first.id), statuses.get(second.id)], ['draft', 'sent']);
  });

  test('projects: the list filtered and paged, a project’s page, updated with refusals on their fields, delivered after a confirmation page with project.delivered at the webhook endpoint, audited', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    await allEventsEndpoint(platform, key, receiver.url);
    const lead = await newLead(key);
    const made: Project[] = [];
    for (let n = 0; n < 27; n++) made.push(await newProject(key, lead.id, `Project ${n}`));
    const owner = await signedIn(orgId, 'owner');
    const first = await owner.get(projects);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /<a href="\/dashboard\/invoices" aria-current="page">Billing<\/a>/);
    const firstRows = rows(first.body, 'project');
    assert.equal(firstRows.length, 25);
    const older = await owner.get(hrefOf(first.body, 'projects-older') ?? '');
    assert.deepEqual(new Set([...firstRows, ...rows(older.body, 'project')]), new Set(made.map((project) => project.id)));
    assert.match(first.body, /1 of 2/);
    assert.equal((await owner.get(`${projects}?status=shipped`)).statusCode, 400);
    assert.equal((await owner.get(`${projects}?cursor=zzz`)).statusCode, 400);
    assert.match((await owner.get(`${projects}?status=delivered`)).body, /id="projects-empty">No projects match these filters\./);

    const project = made[0] as Project;
    const path = `${projects}/${project.id}`;
    const page = await owner.get(path);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<a href="https:\/\/example\.com\/mockups" rel="noopener noreferrer">Mockups<\/a>/);
    assert.match(page.body, /Ada Lovelace/);
    const edit = await owner.get(`${path}/edit`);
    assert.match(edit.body, /name="deliverables\.0\.url" type="url" value="https:\/\/example\.com\/mockups"/);
    const fields = {
      rows: '5',
      name: 'Website, redesigned',
      status: 'ready',
      due_date: '2027-01-15',
      notes: 'All signed off.',
      'deliverables.0.name': 'Mockups',
      'deliverables.0.url': 'https://example.com/mockups',
      'deliverables.0.done': 'on',
      'deliverables.2.name': 'Launch',
      'deliverables.2.url': 'ftp://example.com/launch',
    };
    const refused = await owner.post(path, fields);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /<p id="deliverable-2-url-error" class="field-error">Enter a link that starts with https:\/\//);
    const nameless = await owner.post(path, { ...fields, name: ' ', 'deliverables.2.url': '' });
    assert.match(nameless.body, /<p id="project-name-error" class="field-error">Enter a name/);
    const saved = await owner.post(path, { ...fields, 'deliverables.2.url': 'https://example.com/launch', 'deliverables.2.done': 'on' });
    assert.equal(saved.statusCode, 303, saved.body);
    const shown = await owner.get(path);
    assert.match(shown.body, /role="status">Project saved\.</);
    assert.match(shown.body, /<h1>Website, redesigned<\/h1>/);
    assert.match(shown.body, /id="project-status">ready</);
    assert.match(shown.body, /2 of 2/);
    assert.match(shown.body, /All signed off\./);

    const confirmation = await owner.get(`${path}/deliver`);
    assert.match(confirmation.body, /<h1>Deliver “Website, redesigned”\?<\/h1>/);
    assert.match(confirmation.body, /ada@example\.com/);
    assert.match(confirmation.body, /<code>project\.delivered<\/code>/);
    const delivered = await owner.post(`${path}/deliver`, {});
    assert.equal(delivered.statusCode, 303, delivered.body);
    const after = await owner.get(path);
    assert.match(after.body, /role="status">Project delivered\.</);
    assert.match(after.body, /id="project-status">delivered</);
    assert.doesNotMatch(after.body, /id="project-edit"|id="project-deliver"/);
    await receiver.waitFor(() => eventsOf('project.delivered', project.id).length === 1);
    assert.equal((await owner.post(`${path}/deliver`, {})).statusCode, 409, 'delivered once');
    assert.equal((await owner.get(`${path}/deliver`)).statusCode, 409);
    assert.deepEqual(
      (await auditOf(orgId, path)).map((record) => record.keyId),
      [owner.userId, owner.userId, owner.userId],
    );
    assert.equal((await auditOf(orgId, `${path}/deliver`))[0]?.status, 200);
  });

  test('members read every billing page without a form or action link, get 403 for every form page and every hand-made write, and nothing changes', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const lead = await newLead(key);
    const draft = await newInvoice(key, lead.id);
    const sentOne = await newInvoice(key, lead.id);
    await api(key, 'POST', `/invoices/${sentOne.id}/send`);
    const project = await newProject(key, lead.id);
    const owner = await signedIn(orgId, 'owner');
    const ownersKey = formKeyOf((await owner.get(`${invoices}/new`)).body);
    const member = await signedIn(orgId, 'member');
    for (const path of [invoices, `${invoices}/${draft.id}`, `${invoices}/${sentOne.id}`, projects, `${projects}/${project.id}`]) {
      const page = await member.get(path);
      assert.equal(page.statusCode, 200, path);
      assert.doesNotMatch(
        page.body,
        /name="form_key"|id="invoices-new"|id="invoice-(edit|send|pay|void|delete)"|id="project-(edit|deliver)"/,
        path,
      );
    }
    const forms = [
      `${invoices}/new`,
      `${invoices}/${draft.id}/edit`,
      ...['send', 'void', 'delete'].map((action) => `${invoices}/${draft.id}/${action}`),
      `${invoices}/${sentOne.id}/pay`,
      `${projects}/${project.id}/edit`,
      `${projects}/${project.id}/deliver`,
    ];
    for (const path of forms) assert.equal((await member.get(path)).statusCode, 403, path);
    const writes: Array<[string, Record<string, string>]> = [
      [invoices, draftFields(ownersKey, lead.id, { 0: ['Sneaky', '1', '1', ''] })],
      [`${invoices}/${draft.id}`, { lead_id: lead.id, currency: 'USD', 'lines.0.description': 'Sneaky', 'lines.0.unit_price': '1' }],
      ...['send', 'void', 'delete'].map((action): [string, Record<string, string>] => [`${invoices}/${draft.id}/${action}`, {}]),
      [`${invoices}/${sentOne.id}/pay`, {}],
      [`${projects}/${project.id}`, { name: 'Sneaky', status: 'ready' }],
      [`${projects}/${project.id}/deliver`, {}],
    ];
    for (const [path, fields] of writes) assert.equal((await member.post(path, fields)).statusCode, 403, path);
    const after = new Map((await invoicesOf(orgId)).map((invoice) => [invoice.id, invoice]));
    assert.equal(after.size, 2);
    assert.deepEqual([after.get(draft.id)?.status, after.get(draft.id)?.total], ['draft', 10_000n]);
    assert.equal(after.get(sentOne.id)?.status, 'sent');
    const unchanged = await platform.leads.deps.prisma.project.findFirstOrThrow({ where: { id: project.id } });
    assert.deepEqual([unchanged.name, unchanged.status], ['Website redesign', 'active']);
  });

  test('another organization’s invoice and project ids, unknown and malformed ones, are 404 on every page and action', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const theirLead = await newLead(other.key);
    const theirInvoice = await newInvoice(other.key, theirLead.id);
    const theirProject = await newProject(other.key, theirLead.id);
    const owner = await signedIn(orgId, 'owner');
    const invoiceIds = [theirInvoice.id, 'inv_00000000000000000000', 'not-an-invoice'];
    const projectIds = [theirProject.id, 'prj_00000000000000000000', 'inv_00000000000000000000'];
    for (const id of invoiceIds) {
      for (const suffix of ['', '/edit', '/send', '/pay', '/void', '/delete']) {
        assert.equal((await owner.get(`${invoices}/${id}${suffix}`)).statusCode, 404, `GET ${id}${suffix}`);
      }
      for (const suffix of ['', '/send', '/pay', '/void', '/delete']) {
        const answer = await owner.post(`${invoices}/${id}${suffix}`, { lead_id: theirLead.id, currency: 'USD' });
        assert.equal(answer.statusCode, 404, `POST ${id}${suffix}`);
      }
    }
    for (const id of projectIds) {
      for (const suffix of ['', '/edit', '/deliver'])
        assert.equal((await owner.get(`${projects}/${id}${suffix}`)).statusCode, 404, `GET ${id}${suffix}`);
      for (const suffix of ['', '/deliver']) {
        assert.equal(
          (await owner.post(`${projects}/${id}${suffix}`, { name: 'Mine now', status: 'ready' })).statusCode,
          404,
          `POST ${id}${suffix}`,
        );
      }
    }
    const theirs = await platform.leads.deps.prisma.invoice.findFirstOrThrow({ where: { id: theirInvoice.id } });
    assert.equal(theirs.status, 'draft');
    const theirsProject = await platform.leads.deps.prisma.project.findFirstOrThrow({ where: { id: theirProject.id } });
    assert.deepEqual([theirsProject.name, theirsProject.status], ['Website redesign', 'active']);
    // Their lead cannot be billed from here either: the leads service says it has no such lead.
    const formKey = formKeyOf((await owner.get(`${invoices}/new`)).body);
    const borrowed = await owner.post(invoices, draftFields(formKey, theirLead.id, { 0: ['x', '1', '1', ''] }));
    assert.equal(borrowed.statusCode, 404);
    assert.match(borrowed.body, /This organization has no lead with this id\./);
  });
});
