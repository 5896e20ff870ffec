import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { collectEvents, type Harness, type Json, startLeads, testIdentity } from './support/harness.js';

describe('invoices and projects', () => {
  let h: Harness;
  let events: ReturnType<typeof collectEvents>;
  const org = testIdentity();
  const otherOrg = testIdentity();
  let customer: Json;

  before(async () => {
    h = await startLeads();
    events = collectEvents(h);
    customer = (await h.request(org, 'POST', '/api/v1/leads', { name: 'Customer Co', email: 'billing@customer.example' })).json();
  });
  after(async () => {
    await h?.close();
  });

  const draft = async (body: Record<string, unknown>, identity = org) => {
    const response = await h.request(identity, 'POST', '/api/v1/invoices', { lead_id: customer.id, ...body });
    assert.equal(response.statusCode, 201, JSON.stringify(response.json()));
    return response.json();
  };

  it('computes totals from the lines, rounding half-up per line, ignoring client totals', async () => {
    const invoice = await draft({
      currency: 'EUR',
      due_date: '2026-12-31',
      lines: [
        { description: 'Widgets', quantity: 3, unit_amount: 333, tax_rate_bps: 825 },
        { description: 'Consulting hours', quantity: 1.5, unit_amount: 1999, tax_rate_bps: 1250 },
        { description: 'Stickers', quantity: 1, unit_amount: 4, tax_rate_bps: 1250 },
      ],
    });
    assert.equal(invoice.status, 'draft');
    assert.equal(invoice.currency, 'EUR');
    assert.equal(invoice.due_date, '2026-12-31');
    // 999 + 82.4175→82 ; 2998.5→2999 + 374.875→375 ; 4 + 0.5→1
    assert.deepEqual(
      invoice.lines.map((line: Json) => [line.subtotal, line.tax, line.total]),
      [
        [999, 82, 1081],
        [2999, 375, 3374],
        [4, 1, 5],
      ],
    );
    assert.equal(invoice.subtotal, 999 + 2999 + 4);
    assert.equal(invoice.tax, 82 + 375 + 1);
    assert.equal(invoice.total, 1081 + 3374 + 5);

    // Totals are not part of the request: a client that sends its own is told so, never trusted.
    for (const forged of [
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: 100, total: 1 }] },
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: 100 }], total: 1 },
    ]) {
      const response = await h.request(org, 'POST', '/api/v1/invoices', forged);
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error.code, 'invalid_request');
    }
  });

  it('refuses bad invoice input', async () => {
    for (const body of [
      { lead_id: customer.id, currency: 'euro' },
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: -1 }] },
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: 1, quantity: 1.0001 }] },
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: 1.5 }] },
      { lead_id: customer.id, lines: [{ description: 'X', unit_amount: 1, tax_rate_bps: 10_001 }] },
      { lead_id: customer.id, due_date: '31/12/2026' },
      { lines: [] },
    ]) {
      const response = await h.request(org, 'POST', '/api/v1/invoices', body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().error.code, 'invalid_request');
    }
    const unknownLead = await h.request(org, 'POST', '/api/v1/invoices', { lead_id: 'lead_00000000000000000000' });
    assert.equal(unknownLead.statusCode, 404);
    assert.equal(unknownLead.json().error.param, 'lead_id');
  });

  it('changes only drafts; sending freezes the invoice and announces it once', async () => {
    const invoice = await draft({ lines: [{ description: 'Setup', unit_amount: 10_000 }] });
    const changed = await h.request(org, 'PATCH', `/api/v1/invoices/${invoice.id}`, {
      lines: [{ description: 'Setup', unit_amount: 10_000, tax_rate_bps: 2000 }],
      memo: 'Thanks!',
    });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.json().total, 12_000);
    assert.equal(changed.json().memo, 'Thanks!');

    const sent = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`, undefined, {
      'idempotency-key': `send-${invoice.id}`,
    });
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.json().status, 'sent');
    assert.ok(sent.json().sent_at);
    const replay = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`, undefined, {
      'idempotency-key': `send-${invoice.id}`,
    });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.json().sent_at, sent.json().sent_at);

    const locked = await h.request(org, 'PATCH', `/api/v1/invoices/${invoice.id}`, { memo: 'Changed my mind' });
    assert.equal(locked.statusCode, 409);
    assert.equal(locked.json().error.code, 'conflict');
    const sendAgain = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`);
    assert.equal(sendAgain.statusCode, 409);
    const deleteSent = await h.request(org, 'DELETE', `/api/v1/invoices/${invoice.id}`);
    assert.equal(deleteSent.statusCode, 409);

    await eventually('invoice.sent', async () => events.find((event) => event.type === 'invoice.sent' && event.data.id === invoice.id));
    assert.equal(events.filter((event) => event.type === 'invoice.sent' && event.data.id === invoice.id).length, 1);

    const paid = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/pay`);
    assert.equal(paid.json().status, 'paid');
    const voidPaid = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/void`);
    assert.equal(voidPaid.statusCode, 409);
  });

  it('sends only invoices with lines; voids and deletes drafts', async () => {
    const empty = await draft({});
    const refused = await h.request(org, 'POST', `/api/v1/invoices/${empty.id}/send`);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.param, 'lines');
    const voided = await h.request(org, 'POST', `/api/v1/invoices/${empty.id}/void`);
    assert.equal(voided.json().status, 'void');
    assert.equal((await h.request(org, 'POST', `/api/v1/invoices/${empty.id}/send`)).statusCode, 409);

    const scrap = await draft({});
    assert.equal((await h.request(org, 'DELETE', `/api/v1/invoices/${scrap.id}`)).statusCode, 200);
    assert.equal((await h.request(org, 'GET', `/api/v1/invoices/${scrap.id}`)).statusCode, 404);
  });

  it('lists invoices by status and customer, by cursor', async () => {
    const listOrg = testIdentity();
    const buyer = (await h.request(listOrg, 'POST', '/api/v1/leads', { name: 'Buyer' })).json();
    const otherBuyer = (await h.request(listOrg, 'POST', '/api/v1/leads', { name: 'Other buyer' })).json();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push(
        (
          await h.request(listOrg, 'POST', '/api/v1/invoices', { lead_id: buyer.id, lines: [{ description: 'x', unit_amount: 100 }] })
        ).json().id,
      );
    }
    const otherInvoice = (await h.request(listOrg, 'POST', '/api/v1/invoices', { lead_id: otherBuyer.id })).json();
    await h.request(listOrg, 'POST', `/api/v1/invoices/${ids[0]}/send`);

    const sent = (await h.request(listOrg, 'GET', '/api/v1/invoices?status=sent')).json();
    assert.deepEqual(
      sent.data.map((item: Json) => item.id),
      [ids[0]],
    );
    const forOther = (await h.request(listOrg, 'GET', `/api/v1/invoices?lead_id=${otherBuyer.id}`)).json();
    assert.deepEqual(
      forOther.data.map((item: Json) => item.id),
      [otherInvoice.id],
    );
    const page1 = (await h.request(listOrg, 'GET', `/api/v1/invoices?lead_id=${buyer.id}&limit=2`)).json();
    const page2 = (await h.request(listOrg, 'GET', `/api/v1/invoices?lead_id=${buyer.id}&limit=2&cursor=${page1.next_cursor}`)).json();
    assert.deepEqual(
      [...page1.data, ...page2.data].map((item: Json) => item.id),
      [...ids].reverse(),
    );
    assert.equal(page2.has_more, false);
  });

  it('runs projects from active to delivered, and a delivered project is final', async () => {
    const created = await h.request(org, 'POST', '/api/v1/projects', {
      lead_id: customer.id,
      name: 'Website',
      due_date: '2027-01-15',
      deliverables: [{ name: 'Design' }, { name: 'Build', url: 'https://example.com/build' }],
    });
    assert.equal(created.statusCode, 201, JSON.stringify(created.json()));
    const project = created.json();
    assert.match(project.id, /^prj_/);
    assert.equal(project.status, 'active');
    assert.deepEqual(project.deliverables[0], { name: 'Design', url: null, done: false });

    const ready = await h.request(org, 'PATCH', `/api/v1/projects/${project.id}`, {
      status: 'ready',
      deliverables: [
        { name: 'Design', done: true },
        { name: 'Build', url: 'https://example.com/build', done: true },
      ],
      notes: 'All set',
    });
    assert.equal(ready.json().status, 'ready');
    const cannotDeliverByPatch = await h.request(org, 'PATCH', `/api/v1/projects/${project.id}`, { status: 'delivered' });
    assert.equal(cannotDeliverByPatch.statusCode, 400);

    const delivered = await h.request(org, 'POST', `/api/v1/projects/${project.id}/deliver`);
    assert.equal(delivered.statusCode, 200);
    assert.equal(delivered.json().status, 'delivered');
    assert.ok(delivered.json().delivered_at);
    await eventually('project.delivered', async () =>
      events.find((event) => event.type === 'project.delivered' && event.data.id === project.id),
    );

    assert.equal((await h.request(org, 'POST', `/api/v1/projects/${project.id}/deliver`)).statusCode, 409);
    assert.equal((await h.request(org, 'PATCH', `/api/v1/projects/${project.id}`, { notes: 'late change' })).statusCode, 409);

    const list = (await h.request(org, 'GET', '/api/v1/projects?status=delivered')).json();
    assert.deepEqual(
      list.data.map((item: Json) => item.id),
      [project.id],
    );
    const active = (await h.request(org, 'GET', '/api/v1/projects?status=active')).json();
    assert.equal(active.data.length, 0);

    const bad = await h.request(org, 'POST', '/api/v1/projects', { lead_id: customer.id, name: '' });
    assert.equal(bad.statusCode, 400);
  });

  it('lists projects by customer, by cursor', async () => {
    const listOrg = testIdentity();
    const buyer = (await h.request(listOrg, 'POST', '/api/v1/leads', { name: 'Project buyer' })).json();
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push(
        (
          await h.request(listOrg, 'POST', '/api/v1/projects', {
            lead_id: buyer.id,
            name: `P${index}`,
            status: index === 0 ? 'ready' : 'active',
          })
        ).json().id,
      );
    }
    const ready = (await h.request(listOrg, 'GET', '/api/v1/projects?status=ready')).json();
    assert.deepEqual(
      ready.data.map((item: Json) => item.id),
      [ids[0]],
    );
    const page1 = (await h.request(listOrg, 'GET', `/api/v1/projects?lead_id=${buyer.id}&limit=2`)).json();
    assert.equal(page1.has_more, true);
    const page2 = (await h.request(listOrg, 'GET', `/api/v1/projects?lead_id=${buyer.id}&limit=2&cursor=${page1.next_cursor}`)).json();
    assert.deepEqual(
      [...page1.data, ...page2.data].map((item: Json) => item.id),
      [...ids].reverse(),
    );
    const mismatched = await h.request(listOrg, 'GET', `/api/v1/projects?limit=2&cursor=${page1.next_cursor}`);
    assert.equal(mismatched.json().error.code, 'invalid_cursor');
  });

  it('keeps organizations apart', async () => {
    const invoice = await draft({ lines: [{ description: 'x', unit_amount: 1 }] });
    const project = (await h.request(org, 'POST', '/api/v1/projects', { lead_id: customer.id, name: 'Secret' })).json();
    for (const [method, url, payload] of [
      ['GET', `/api/v1/invoices/${invoice.id}`, undefined],
      ['PATCH', `/api/v1/invoices/${invoice.id}`, { memo: 'x' }],
      ['DELETE', `/api/v1/invoices/${invoice.id}`, undefined],
      ['POST', `/api/v1/invoices/${invoice.id}/send`, undefined],
      ['POST', `/api/v1/invoices/${invoice.id}/void`, undefined],
      ['GET', `/api/v1/projects/${project.id}`, undefined],
      ['PATCH', `/api/v1/projects/${project.id}`, { name: 'x' }],
      ['POST', `/api/v1/projects/${project.id}/deliver`, undefined],
      ['DELETE', `/api/v1/projects/${project.id}`, undefined],
      // Another organization's lead as the customer is no such lead.
      ['POST', '/api/v1/invoices', { lead_id: customer.id }],
      ['POST', '/api/v1/projects', { lead_id: customer.id, name: 'x' }],
    ] as const) {
      const response = await h.request(otherOrg, method, url, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.json().error.code, 'not_found');
    }
    assert.equal((await h.request(org, 'GET', `/api/v1/invoices/${invoice.id}`)).json().status, 'draft');
    await assert.rejects(
      h.deps.bus.call(leadsRpc.sendInvoice, otherOrg, { id: invoice.id }),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found',
    );
  });

  it('serves invoices and projects over NATS', async () => {
    const invoice = await h.deps.bus.call(leadsRpc.draftInvoice, org, {
      lead_id: customer.id,
      lines: [{ description: 'x', unit_amount: 250, quantity: 2 }],
    });
    assert.equal(invoice.total, 500);
    const updated = await h.deps.bus.call(leadsRpc.updateInvoice, org, { id: invoice.id, due_date: '2027-02-01' });
    assert.equal(updated.due_date, '2027-02-01');
    const sent = await h.deps.bus.call(leadsRpc.sendInvoice, org, { id: invoice.id });
    assert.equal(sent.status, 'sent');
    const project = await h.deps.bus.call(leadsRpc.createProject, org, { lead_id: customer.id, name: 'Via NATS' });
    const delivered = await h.deps.bus.call(leadsRpc.deliverProject, org, { id: project.id });
    assert.equal(delivered.status, 'delivered');
    const listed = await h.deps.bus.call(leadsRpc.listInvoices, org, { status: 'sent', lead_id: customer.id });
    assert.ok(listed.data.some((item) => item.id === invoice.id));
  });

  it('sends and delivers once per idempotency key over NATS too, the key shared with REST', async () => {
    const invoice = await draft({ lines: [{ description: 'Once', unit_amount: 700 }] });
    const key = `nats-send-${invoice.id}`;
    const sent = await h.deps.bus.call(leadsRpc.sendInvoice, org, { id: invoice.id, idempotency_key: key });
    assert.equal(sent.status, 'sent');
    // Without the key a second send is refused (the invoice is no longer a draft); with it, the first answer comes back.
    assert.deepEqual(await h.deps.bus.call(leadsRpc.sendInvoice, org, { id: invoice.id, idempotency_key: key }), sent);
    const viaRest = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`, undefined, { 'idempotency-key': key });
    assert.equal(viaRest.statusCode, 200);
    assert.equal(viaRest.headers['idempotent-replayed'], 'true');
    assert.equal(viaRest.json().sent_at, sent.sent_at);
    const other = await draft({ lines: [{ description: 'Other', unit_amount: 1 }] });
    await assert.rejects(
      h.deps.bus.call(leadsRpc.sendInvoice, org, { id: other.id, idempotency_key: key }),
      (error: unknown) => error instanceof ApiError && error.code === 'idempotency_conflict',
    );

    const project = (await h.request(org, 'POST', '/api/v1/projects', { lead_id: customer.id, name: 'Deliver once' })).json();
    const deliverKey = `nats-deliver-${project.id}`;
    const delivered = await h.deps.bus.call(leadsRpc.deliverProject, org, { id: project.id, idempotency_key: deliverKey });
    assert.equal(delivered.status, 'delivered');
    assert.deepEqual(await h.deps.bus.call(leadsRpc.deliverProject, org, { id: project.id, idempotency_key: deliverKey }), delivered);
    const deliveredViaRest = await h.request(org, 'POST', `/api/v1/projects/${project.id}/deliver`, undefined, {
      'idempotency-key': deliverKey,
    });
    assert.equal(deliveredViaRest.statusCode, 200);
    assert.equal(deliveredViaRest.headers['idempotent-replayed'], 'true');
    const deliveries = () => events.filter((event) => event.type === 'project.delivered' && event.data.id === project.id);
    await eventually('project.delivered', async () => deliveries()[0]);
    assert.equal(deliveries().length, 1);
    assert.equal(events.filter((event) => event.type === 'invoice.sent' && event.data.id === invoice.id).length, 1);
  });

  it('acts on the path’s invoice, whatever a body the route does not take says', async () => {
    const invoice = await draft({ lines: [{ description: 'Path', unit_amount: 100 }] });
    const other = await draft({ lines: [{ description: 'Body', unit_amount: 100 }] });
    const sent = await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`, { id: other.id });
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.json().id, invoice.id);
    assert.equal((await h.request(org, 'GET', `/api/v1/invoices/${other.id}?id=${invoice.id}`)).json().status, 'draft');
  });

  it('keeps invoices when their customer is deleted, without the link', async () => {
    const lead = (await h.request(org, 'POST', '/api/v1/leads', { name: 'Leaving' })).json();
    const invoice = (
      await h.request(org, 'POST', '/api/v1/invoices', { lead_id: lead.id, lines: [{ description: 'x', unit_amount: 1 }] })
    ).json();
    await h.request(org, 'POST', `/api/v1/invoices/${invoice.id}/send`);
    await h.request(org, 'DELETE', `/api/v1/leads/${lead.id}`);
    const kept = (await h.request(org, 'GET', `/api/v1/invoices/${invoice.id}`)).json();
    assert.equal(kept.lead_id, null);
    assert.equal(kept.total, 1);
  });
});
