import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import { type EventData, leadsRpc } from '@voice/proto';
import { collectEvents, type Harness, type Json, startLeads, testIdentity } from './support/harness.js';

describe('leads', () => {
  let h: Harness;
  let events: ReturnType<typeof collectEvents>;
  const org = testIdentity();
  const otherOrg = testIdentity();

  before(async () => {
    h = await startLeads();
    events = collectEvents(h);
  });
  after(async () => {
    await h?.close();
  });

  const createLead = async (body: Record<string, unknown>, identity = org) => {
    const response = await h.request(identity, 'POST', '/api/v1/leads', body);
    assert.equal(response.statusCode, 201, JSON.stringify(response.json()));
    return response.json();
  };

  it('creates a lead, announces it and reads it back with notes, enrollments and calls', async () => {
    const lead = await createLead({
      name: 'Ada Lovelace',
      phone: '+14155550101',
      email: 'Ada@Example.com',
      tags: ['vip', 'vip'],
      note: 'Met at the fair',
    });
    assert.match(lead.id, /^lead_/);
    assert.equal(lead.status, 'new');
    assert.equal(lead.email, 'ada@example.com');
    assert.deepEqual(lead.tags, ['vip']);
    assert.equal(lead.qualified_at, null);

    const detail = await h.request(org, 'GET', `/api/v1/leads/${lead.id}`);
    assert.equal(detail.statusCode, 200);
    assert.equal(detail.json().name, 'Ada Lovelace');
    assert.deepEqual(
      detail.json().notes.map((note: Json) => note.body),
      ['Met at the fair'],
    );
    assert.deepEqual(detail.json().enrollments, []);
    // Telephony is not running in this test: the detail says so rather than failing.
    assert.equal(detail.json().recent_calls, null);

    const created = await eventually('lead.created', async () =>
      events.find((event) => event.type === 'lead.created' && event.data.id === lead.id),
    );
    assert.equal(created.org_id, org.org_id);
  });

  it('refuses bad input with the error envelope', async () => {
    const badPhone = await h.request(org, 'POST', '/api/v1/leads', { name: 'X', phone: '555-1234' });
    assert.equal(badPhone.statusCode, 400);
    assert.equal(badPhone.json().error.code, 'invalid_request');
    assert.equal(badPhone.json().error.param, 'phone');

    const nothing = await h.request(org, 'POST', '/api/v1/leads', { company: 'Acme' });
    assert.equal(nothing.statusCode, 400);
    assert.equal(nothing.json().error.code, 'invalid_request');

    const badStatus = await h.request(org, 'GET', '/api/v1/leads?status=hot');
    assert.equal(badStatus.statusCode, 400);
    assert.equal(badStatus.json().error.param, 'status');

    const badLimit = await h.request(org, 'GET', '/api/v1/leads?limit=101');
    assert.equal(badLimit.statusCode, 400);

    const malformedId = await h.request(org, 'GET', '/api/v1/leads/nope');
    assert.equal(malformedId.statusCode, 400);

    const unknownWorkspace = await h.request(org, 'POST', '/api/v1/leads', { name: 'X', workspace_id: 'ws_0000000000000000' });
    assert.equal(unknownWorkspace.statusCode, 404);
    assert.equal(unknownWorkspace.json().error.param, 'workspace_id');

    const unsigned = await h.app.inject({ method: 'GET', url: '/api/v1/leads' });
    assert.equal(unsigned.statusCode, 401);
  });

  it('refuses a read key on writing operations, over REST and NATS', async () => {
    const reader = testIdentity({ org_id: org.org_id, scope: 'read' });
    const write = await h.request(reader, 'POST', '/api/v1/leads', { name: 'Nope' });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().error.code, 'forbidden_scope');
    assert.equal((await h.request(reader, 'GET', '/api/v1/leads')).statusCode, 200);
    await assert.rejects(
      h.deps.bus.call(leadsRpc.createLead, reader, { name: 'Nope' }),
      (error: unknown) => error instanceof ApiError && error.code === 'forbidden_scope',
    );
    const page = await h.deps.bus.call(leadsRpc.listLeads, reader, {});
    assert.ok(Array.isArray(page.data));
  });

  it('publishes its OpenAPI description and readiness', async () => {
    const openapi = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(openapi.statusCode, 200);
    const paths = Object.keys(openapi.json().paths);
    for (const path of [
      '/api/v1/leads',
      '/api/v1/leads/recent',
      '/api/v1/sequences/{id}/enrollments',
      '/api/v1/invoices/{id}/send',
      '/api/v1/themes/{id}/apply',
    ]) {
      assert.ok(paths.includes(path), path);
    }
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json().checks, { postgres: 'ok', redis: 'ok', nats: 'ok' });
  });

  it('acts on the path’s lead: a query or body the route does not take changes nothing', async () => {
    const kept = (await h.request(org, 'POST', '/api/v1/leads', { name: 'Kept' })).json();
    const other = (await h.request(org, 'POST', '/api/v1/leads', { name: 'Other' })).json();
    assert.equal((await h.request(org, 'GET', `/api/v1/leads/${kept.id}?id=${other.id}`)).json().id, kept.id);
    const changed = await h.request(org, 'PATCH', `/api/v1/leads/${kept.id}?status=won&owner=someone`, { tags: ['vip'] });
    assert.equal(changed.statusCode, 200);
    assert.deepEqual([changed.json().status, changed.json().owner, changed.json().tags], ['new', null, ['vip']]);
  });

  it('creates once per Idempotency-Key', async () => {
    const key = `lead-${Date.now()}`;
    const first = await h.request(org, 'POST', '/api/v1/leads', { name: 'Once' }, { 'idempotency-key': key });
    const again = await h.request(org, 'POST', '/api/v1/leads', { name: 'Once' }, { 'idempotency-key': key });
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.json().id, first.json().id);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const other = await h.request(org, 'POST', '/api/v1/leads', { name: 'Twice' }, { 'idempotency-key': key });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error.code, 'idempotency_conflict');
  });

  it('lists with filters and walks pages by cursor', async () => {
    const filterOrg = testIdentity();
    const workspace = (await h.request(filterOrg, 'POST', '/api/v1/workspaces', { name: 'North' })).json();
    const created = [];
    for (let index = 0; index < 5; index++) {
      created.push(
        await createLead(
          {
            name: `Lead ${index}`,
            company: index === 3 ? 'Globex Corporation' : 'Initech',
            status: index % 2 === 0 ? 'new' : 'contacted',
            tags: index < 2 ? ['spring'] : ['autumn'],
            ...(index === 4 ? { workspace_id: workspace.id } : {}),
          },
          filterOrg,
        ),
      );
    }
    const ids = (page: Json) => page.data.map((lead: Json) => lead.id);

    const byStatus = (await h.request(filterOrg, 'GET', '/api/v1/leads?status=contacted')).json();
    assert.deepEqual(ids(byStatus).sort(), [created[1].id, created[3].id].sort());
    const byTag = (await h.request(filterOrg, 'GET', '/api/v1/leads?tag=spring')).json();
    assert.deepEqual(ids(byTag).sort(), [created[0].id, created[1].id].sort());
    const byWorkspace = (await h.request(filterOrg, 'GET', `/api/v1/leads?workspace_id=${workspace.id}`)).json();
    assert.deepEqual(ids(byWorkspace), [created[4].id]);
    const byText = (await h.request(filterOrg, 'GET', '/api/v1/leads?q=globex')).json();
    assert.deepEqual(ids(byText), [created[3].id]);

    const seen: string[] = [];
    let url = '/api/v1/leads?limit=2';
    let pages = 0;
    for (;;) {
      const page = (await h.request(filterOrg, 'GET', url)).json();
      pages++;
      seen.push(...ids(page));
      if (!page.has_more) {
        assert.equal(page.next_cursor, null);
        break;
      }
      url = `/api/v1/leads?limit=2&cursor=${page.next_cursor}`;
    }
    assert.equal(pages, 3);
    // Newest first, each lead once.
    assert.deepEqual(seen, created.map((lead) => lead.id).reverse());

    const first = (await h.request(filterOrg, 'GET', '/api/v1/leads?limit=2')).json();
    const wrongFilters = await h.request(filterOrg, 'GET', `/api/v1/leads?limit=2&status=new&cursor=${first.next_cursor}`);
    assert.equal(wrongFilters.statusCode, 400);
    assert.equal(wrongFilters.json().error.code, 'invalid_cursor');
    const garbage = await h.request(filterOrg, 'GET', '/api/v1/leads?cursor=not-a-cursor');
    assert.equal(garbage.json().error.code, 'invalid_cursor');
  });

  it('lists recent leads by age and qualification', async () => {
    const recentOrg = testIdentity();
    const old = await createLead({ name: 'Old' }, recentOrg);
    const fresh = await createLead({ name: 'Fresh' }, recentOrg);
    const qualified = await createLead({ name: 'Hot', status: 'qualified' }, recentOrg);
    // Backdate one lead by three days.
    await h.deps.prisma.lead.updateMany({
      where: { orgId: recentOrg.org_id, id: old.id },
      data: { createdAt: new Date(Date.now() - 72 * 3600 * 1000) },
    });
    const ids = (page: Json) => page.data.map((lead: Json) => lead.id);

    const week = (await h.request(recentOrg, 'GET', '/api/v1/leads/recent')).json();
    assert.deepEqual(ids(week), [qualified.id, fresh.id, old.id]);
    const day = (await h.request(recentOrg, 'GET', '/api/v1/leads/recent?since_hours=24')).json();
    assert.deepEqual(ids(day), [qualified.id, fresh.id]);
    const onlyQualified = (await h.request(recentOrg, 'GET', '/api/v1/leads/recent?qualified_only=true')).json();
    assert.deepEqual(ids(onlyQualified), [qualified.id]);
    const notOnly = (await h.request(recentOrg, 'GET', '/api/v1/leads/recent?qualified_only=false&since_hours=24')).json();
    assert.deepEqual(ids(notOnly), [qualified.id, fresh.id]);
    const bad = await h.request(recentOrg, 'GET', '/api/v1/leads/recent?since_hours=0');
    assert.equal(bad.statusCode, 400);

    const viaRpc = await h.deps.bus.call(leadsRpc.recentLeads, recentOrg, { qualified_only: true });
    assert.deepEqual(ids(viaRpc), [qualified.id]);
  });

  it('counts the leads a period brought and qualified, for the console; another organization counts none', async () => {
    const countOrg = testIdentity();
    const hour = 3600 * 1000;
    const now = Date.now();
    const made = [];
    for (const name of ['New', 'Hot', 'Older hot', 'Old']) made.push(await createLead({ name }, countOrg));
    const [, hot, olderHot, old] = made as Json[];
    // Created 3 days ago and qualified an hour ago; created and qualified 5 days ago; created 10 days ago.
    const at = (hoursBack: number) => new Date(now - hoursBack * hour);
    await h.deps.prisma.lead.updateMany({ where: { id: hot.id }, data: { status: 'qualified', qualifiedAt: at(1) } });
    await h.deps.prisma.lead.updateMany({ where: { id: olderHot.id }, data: { createdAt: at(72), status: 'won', qualifiedAt: at(1) } });
    await h.deps.prisma.lead.updateMany({ where: { id: old.id }, data: { createdAt: at(120), status: 'qualified', qualifiedAt: at(120) } });
    const count = (fromHoursBack: number, toHoursBack = -1, identity = countOrg) =>
      h.deps.bus.call(leadsRpc.countLeads, identity, { from: at(fromHoursBack).toISOString(), to: at(toHoursBack).toISOString() });
    const day = await count(24);
    assert.deepEqual([day.object, day.created, day.qualified], ['lead_counts', 2, 2]);
    assert.deepEqual([(await count(96)).created, (await count(96)).qualified], [3, 2]);
    assert.deepEqual([(await count(200, 96)).created, (await count(200, 96)).qualified], [1, 1]);
    assert.deepEqual([(await count(200, -1, otherOrg)).created, (await count(200, -1, otherOrg)).qualified], [0, 0]);
    await assert.rejects(
      h.deps.bus.call(leadsRpc.countLeads, countOrg, { from: at(0).toISOString(), to: at(1).toISOString() }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request',
    );
  });

  it('updates a lead; qualifying it by hand stamps qualified_at and announces it', async () => {
    const lead = await createLead({ name: 'Grace', phone: '+14155550102' });
    const patched = await h.request(org, 'PATCH', `/api/v1/leads/${lead.id}`, {
      status: 'qualified',
      tags: ['enterprise'],
      owner: 'sam@example.com',
      custom_fields: { budget: 5000 },
      next_action: 'Send proposal',
    });
    assert.equal(patched.statusCode, 200);
    const body = patched.json();
    assert.equal(body.status, 'qualified');
    assert.ok(body.qualified_at);
    assert.deepEqual(body.tags, ['enterprise']);
    assert.deepEqual(body.custom_fields, { budget: 5000 });
    await eventually('lead.qualified', async () => events.find((event) => event.type === 'lead.qualified' && event.data.id === lead.id));
    await eventually('lead.updated', async () => events.find((event) => event.type === 'lead.updated' && event.data.id === lead.id));

    const cleared = await h.request(org, 'PATCH', `/api/v1/leads/${lead.id}`, { name: null, phone: null });
    assert.equal(cleared.statusCode, 400);
    const unchanged = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).json();
    assert.equal(unchanged.name, 'Grace');
  });

  it('appends and lists notes', async () => {
    const lead = await createLead({ name: 'Noted' });
    const note = await h.request(org, 'POST', `/api/v1/leads/${lead.id}/notes`, { body: 'Called back', author: 'sam' });
    assert.equal(note.statusCode, 201);
    assert.match(note.json().id, /^note_/);
    await h.request(org, 'POST', `/api/v1/leads/${lead.id}/notes`, { body: 'Sent quote' });
    const notes = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}/notes?limit=1`)).json();
    assert.deepEqual(
      notes.data.map((item: Json) => item.body),
      ['Sent quote'],
    );
    assert.equal(notes.has_more, true);
    const empty = await h.request(org, 'POST', `/api/v1/leads/${lead.id}/notes`, { body: '   ' });
    assert.equal(empty.statusCode, 400);
  });

  it('keeps organizations apart', async () => {
    const lead = await createLead({ name: 'Private' });
    for (const [method, url, payload] of [
      ['GET', `/api/v1/leads/${lead.id}`, undefined],
      ['PATCH', `/api/v1/leads/${lead.id}`, { status: 'lost' }],
      ['DELETE', `/api/v1/leads/${lead.id}`, undefined],
      ['GET', `/api/v1/leads/${lead.id}/notes`, undefined],
      ['POST', `/api/v1/leads/${lead.id}/notes`, { body: 'sneaky' }],
    ] as const) {
      const response = await h.request(otherOrg, method, url, payload);
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.equal(response.json().error.code, 'not_found');
    }
    const list = (await h.request(otherOrg, 'GET', '/api/v1/leads')).json();
    assert.equal(
      list.data.some((item: Json) => item.id === lead.id),
      false,
    );
    await assert.rejects(
      h.deps.bus.call(leadsRpc.getLead, otherOrg, { id: lead.id }),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found',
    );
  });

  it('deletes a lead with its personal data', async () => {
    const lead = await createLead({ name: 'Forget me', email: 'gone@example.com', note: 'private' });
    const deleted = await h.request(org, 'DELETE', `/api/v1/leads/${lead.id}`);
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { id: lead.id, object: 'lead', deleted: true });
    assert.equal((await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).statusCode, 404);
    assert.equal(await h.deps.prisma.leadNote.count({ where: { orgId: org.org_id, leadId: lead.id } }), 0);
  });

  it('qualifies a lead once when telephony reports a qualified call', async () => {
    const lead = await createLead({ name: 'Caller', phone: '+14155550103' });
    const callData = (callId: string, outcome: EventData<'call.completed'>['outcome']): EventData<'call.completed'> => ({
      call_id: callId,
      id: callId,
      object: 'call',
      workspace_id: null,
      direction: 'outbound',
      from: '+14155550000',
      to: '+14155550103',
      lead_id: lead.id,
      status: 'completed',
      outcome,
      end_reason: null,
      source: 'api',
      duration_seconds: 42,
      cost: null,
      metadata: {},
      created_at: new Date().toISOString(),
      started_at: new Date().toISOString(),
      ended_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    // The same lead id reported for another organization changes nothing.
    await h.deps.bus.publish('call.completed', otherOrg.org_id, callData('call_0000000000000001', 'qualified_lead'));
    await h.deps.bus.publish('call.completed', org.org_id, callData('call_0000000000000002', 'qualified_lead'));
    const qualified = await eventually('the lead to be qualified', async () => {
      const row = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).json();
      return row.status === 'qualified' ? row : undefined;
    });
    assert.ok(qualified.qualified_at);
    assert.ok(qualified.last_contacted_at);

    // Redelivery of the same call and a later qualifying call keep the first qualification.
    await h.deps.bus.publish('call.completed', org.org_id, callData('call_0000000000000002', 'qualified_lead'));
    await h.deps.bus.publish('call.completed', org.org_id, callData('call_0000000000000003', 'qualified_lead'));
    const marker = await createLead({ name: 'Marker' });
    await h.deps.bus.publish('call.completed', org.org_id, {
      ...callData('call_0000000000000004', 'booked'),
      lead_id: marker.id,
    });
    // Events are consumed in order: once the marker lead is contacted, the earlier events were handled.
    await eventually('the marker lead to be contacted', async () => {
      const row = (await h.request(org, 'GET', `/api/v1/leads/${marker.id}`)).json();
      return row.status === 'contacted' ? row : undefined;
    });
    const after = (await h.request(org, 'GET', `/api/v1/leads/${lead.id}`)).json();
    assert.equal(after.qualified_at, qualified.qualified_at);
    const row = await h.deps.prisma.lead.findFirst({ where: { orgId: org.org_id, id: lead.id } });
    assert.equal(row?.qualifiedByCallId, 'call_0000000000000002');
    const qualifiedEvents = events.filter((event) => event.type === 'lead.qualified' && event.data.id === lead.id);
    assert.equal(new Set(qualifiedEvents.map((event) => event.id)).size, 1);
  });

  it('serves the same operations over NATS', async () => {
    const rpcOrg = testIdentity();
    const lead = await h.deps.bus.call(leadsRpc.createLead, rpcOrg, { name: 'Via NATS', source: 'mcp', idempotency_key: 'k1' });
    const again = await h.deps.bus.call(leadsRpc.createLead, rpcOrg, { name: 'Via NATS', source: 'mcp', idempotency_key: 'k1' });
    assert.equal(again.id, lead.id);
    const updated = await h.deps.bus.call(leadsRpc.updateLead, rpcOrg, { id: lead.id, tags: ['mcp'] });
    assert.deepEqual(updated.tags, ['mcp']);
    const note = await h.deps.bus.call(leadsRpc.addLeadNote, rpcOrg, { id: lead.id, body: 'From an agent' });
    assert.equal(note.lead_id, lead.id);
    const list = await h.deps.bus.call(leadsRpc.listLeads, rpcOrg, { tag: 'mcp' });
    assert.deepEqual(
      list.data.map((item) => item.id),
      [lead.id],
    );
    await assert.rejects(
      h.deps.bus.call(leadsRpc.createLead, rpcOrg, { phone: 'nope' }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_request',
    );
    const removed = await h.deps.bus.call(leadsRpc.deleteLead, rpcOrg, { id: lead.id });
    assert.equal(removed.deleted, true);
  });
});
