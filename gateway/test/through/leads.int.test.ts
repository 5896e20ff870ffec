// Leads through the gateway: workspaces, themes, leads and notes, sequences and enrollments, invoices and
// projects, driven with fetch and a Bearer key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoiceApiError, VoiceClient } from '@voice/client';
import { eventually } from '@voice/kit/testing';
import {
  type ApiResponse,
  assertError,
  assertRateLimitHeaders,
  assertRecord,
  type Client,
  client,
  idemKey,
  type Json,
  missingId,
  ok,
  type Platform,
  startPlatform,
  walk,
} from '../support/harness.js';

/** Creates with a fresh Idempotency-Key twice: one resource, the same response; another body is 409. */
async function createOnce(api: Client, path: string, body: Json, otherBody: Json, prefix: string, object: string): Promise<Json> {
  const key = idemKey(object);
  const first = ok(await api.post(path, body, { idempotencyKey: key }), 201);
  assertRecord(first, prefix, object);
  const again = await api.post(path, body, { idempotencyKey: key });
  assert.equal(again.status, 201, again.text);
  assert.deepEqual(again.body, first, `${object}: the replay is the first response`);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assertError(await api.post(path, otherBody, { idempotencyKey: key }), 409, 'idempotency_conflict');
  return first;
}

function ids(response: ApiResponse): string[] {
  return ok(response).data.map((item: { id: string }) => item.id);
}

describe('leads through the gateway', () => {
  let platform: Platform;
  let org: { orgId: string; keyId: string; key: string };
  let api: Client;
  let readApi: Client;
  let other: Client;
  const made: Record<string, Json> = {};

  before(async () => {
    platform = await startPlatform();
    org = await platform.org();
    api = client(platform.url, org.key);
    const readKey = (await platform.gateway.admin({ kind: 'key.create', orgId: org.orgId, scope: 'read', monthlyQuota: 10_000 })) as {
      key: string;
    };
    readApi = client(platform.url, readKey.key);
    other = client(platform.url, (await platform.org()).key);
  });
  after(async () => {
    await platform?.close();
  });

  test('workspaces: create once per Idempotency-Key, list, get, update, delete; a taken slug is 409', async () => {
    const workspace = await createOnce(
      api,
      '/api/v1/workspaces',
      { name: 'North Office', timezone: 'Europe/Paris', locale: 'fr-FR', phone_numbers: ['+33142685300'] },
      { name: 'South Office' },
      'ws',
      'workspace',
    );
    assert.equal(workspace.slug, 'north-office');
    assert.equal(workspace.timezone, 'Europe/Paris');
    assert.deepEqual(workspace.phone_numbers, ['+33142685300']);
    assert.deepEqual(ids(await api.get('/api/v1/workspaces')), [workspace.id]);
    assert.deepEqual(ok(await api.get(`/api/v1/workspaces/${workspace.id}`)), workspace);
    const renamed = ok(await api.patch(`/api/v1/workspaces/${workspace.id}`, { name: 'North HQ', slug: 'north-hq' }));
    assert.equal(renamed.name, 'North HQ');
    assert.equal(renamed.slug, 'north-hq');
    assert.ok(renamed.updated_at >= workspace.updated_at);
    assertError(await api.post('/api/v1/workspaces', { name: 'Another', slug: 'north-hq' }), 409, 'conflict', 'slug');

    const doomed = ok(await api.post('/api/v1/workspaces', { name: 'Temporary' }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/workspaces/${doomed.id}`)), { id: doomed.id, object: 'workspace', deleted: true });
    assertError(await api.get(`/api/v1/workspaces/${doomed.id}`), 404, 'not_found');
    made.workspace = renamed;
  });

  test('themes: create once, list, get, update, apply to a workspace, delete', async () => {
    const theme = await createOnce(
      api,
      '/api/v1/themes',
      { name: 'Warm', greeting: 'Hello, thanks for calling!', colors: { primary: '#AA3300' }, is_default: true },
      { name: 'Cold', greeting: 'Hi.' },
      'thm',
      'theme',
    );
    assert.equal(theme.is_default, true);
    assert.equal(theme.tone, 'friendly');
    assert.deepEqual(ids(await api.get('/api/v1/themes')), [theme.id]);
    assert.deepEqual(ok(await api.get(`/api/v1/themes/${theme.id}`)), theme);
    const updated = ok(await api.patch(`/api/v1/themes/${theme.id}`, { tone: 'professional' }));
    assert.equal(updated.tone, 'professional');
    const workspace = ok(await api.post(`/api/v1/themes/${theme.id}/apply`, { workspace_id: made.workspace.id }));
    assertRecord(workspace, 'ws', 'workspace');
    assert.equal(workspace.default_theme_id, theme.id);

    const doomed = ok(await api.post('/api/v1/themes', { name: 'Doomed', greeting: 'Bye' }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/themes/${doomed.id}`)), { id: doomed.id, object: 'theme', deleted: true });
    assertError(await api.delete(`/api/v1/themes/${doomed.id}`), 404, 'not_found');
    made.theme = updated;
  });

  test('leads: create once, list with filters, get the detail, update, notes, delete', async () => {
    const lead = await createOnce(
      api,
      '/api/v1/leads',
      {
        name: 'Ada Lovelace',
        phone: '+14155550101',
        email: 'ada@example.com',
        company: 'Analytical Engines',
        tags: ['vip'],
        workspace_id: made.workspace.id,
        note: 'Met at the fair',
      },
      { name: 'Charles Babbage' },
      'lead',
      'lead',
    );
    assert.equal(lead.status, 'new');
    assert.equal(lead.source, 'api');
    assert.deepEqual(lead.tags, ['vip']);
    assert.equal(lead.workspace_id, made.workspace.id);

    assert.deepEqual(ids(await api.get('/api/v1/leads?tag=vip')), [lead.id]);
    assert.deepEqual(ids(await api.get('/api/v1/leads?q=analytical')), [lead.id]);
    assert.deepEqual(ids(await api.get('/api/v1/leads?status=won')), []);
    assert.deepEqual(ids(await api.get('/api/v1/leads/recent')), [lead.id]);

    const detail = ok(await api.get(`/api/v1/leads/${lead.id}`));
    assertRecord(detail, 'lead', 'lead');
    assert.equal(detail.notes.length, 1);
    assertRecord(detail.notes[0], 'note', 'lead_note');
    assert.equal(detail.notes[0].body, 'Met at the fair');
    assert.deepEqual(detail.enrollments, []);
    assert.deepEqual(detail.recent_calls, [], 'telephony answered over NATS: no calls yet');

    const updated = ok(await api.patch(`/api/v1/leads/${lead.id}`, { status: 'qualified', owner: 'sam@example.com' }));
    assert.equal(updated.status, 'qualified');
    assert.equal(updated.owner, 'sam@example.com');

    const note = await createOnce(api, `/api/v1/leads/${lead.id}/notes`, { body: 'Wants a demo' }, { body: 'Other' }, 'note', 'lead_note');
    assert.equal(note.lead_id, lead.id);
    assert.deepEqual(ids(await api.get(`/api/v1/leads/${lead.id}/notes`)), [note.id, detail.notes[0].id]);
    assert.deepEqual(ok(await api.get(`/api/v1/leads/${lead.id}/enrollments`)).data, []);

    const doomed = ok(await api.post('/api/v1/leads', { email: 'gone@example.com' }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/leads/${doomed.id}`)), { id: doomed.id, object: 'lead', deleted: true });
    assertError(await api.get(`/api/v1/leads/${doomed.id}`), 404, 'not_found');
    assertError(await api.post('/api/v1/leads', { tags: ['x'] }), 400, 'invalid_request');
    made.lead = updated;
  });

  test('sequences and enrollments: create once, update, enroll, run to completion through telephony, stop, delete', async () => {
    const sequence = await createOnce(
      api,
      '/api/v1/sequences',
      { name: 'Follow-up', steps: [{ type: 'sms', body: 'Hi {{first_name}}, thanks for your time!' }] },
      { name: 'Other', steps: [{ type: 'call' }] },
      'seq',
      'sequence',
    );
    assert.equal(sequence.steps.length, 1);
    assert.deepEqual(ids(await api.get('/api/v1/sequences')), [sequence.id]);
    assert.deepEqual(ok(await api.get(`/api/v1/sequences/${sequence.id}`)), sequence);
    const renamed = ok(await api.patch(`/api/v1/sequences/${sequence.id}`, { description: 'After the first call' }));
    assert.equal(renamed.description, 'After the first call');

    const enrollKey = idemKey('enroll');
    const enrolled = ok(
      await api.post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [made.lead.id] }, { idempotencyKey: enrollKey }),
      201,
    );
    assert.equal(enrolled.data.length, 1);
    const enrollment = enrolled.data[0];
    assertRecord(enrollment, 'enr', 'enrollment');
    const replay = await api.post(
      `/api/v1/sequences/${sequence.id}/enrollments`,
      { lead_ids: [made.lead.id] },
      { idempotencyKey: enrollKey },
    );
    assert.deepEqual(replay.body, enrolled);

    const completed = await eventually('the enrollment to complete', async () => {
      const current = ok(await api.get(`/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}`));
      return current.status === 'completed' ? current : undefined;
    });
    assert.equal(completed.history.length, 1);
    assert.equal(completed.history[0].outcome, 'done');
    assert.match(completed.history[0].sms_id, /^sms_/);
    // The step sent its message through telephony, on this organization's behalf.
    const sms = ok(await api.get(`/api/v1/phone/sms/${completed.history[0].sms_id}`));
    assert.equal(sms.body, 'Hi Ada, thanks for your time!');
    assert.equal(sms.to, made.lead.phone);
    assertError(await api.post(`/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}/stop`), 409, 'conflict');

    // A long wait keeps the next enrollment active: deleting the sequence is 409 until it is stopped.
    const waiting = ok(
      await api.post('/api/v1/sequences', { name: 'Slow', steps: [{ type: 'wait', delay_seconds: 86_400 }, { type: 'call' }] }),
      201,
    );
    const active = ok(await api.post(`/api/v1/sequences/${waiting.id}/enrollments`, { lead_ids: [made.lead.id] }), 201).data[0];
    assert.equal(active.status, 'active');
    assert.deepEqual(ids(await api.get(`/api/v1/sequences/${waiting.id}/enrollments?status=active`)), [active.id]);
    assertError(await api.delete(`/api/v1/sequences/${waiting.id}`), 409, 'conflict');
    const stopped = ok(await api.post(`/api/v1/sequences/${waiting.id}/enrollments/${active.id}/stop`, { reason: 'replied' }));
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.stopped_reason, 'replied');
    assert.deepEqual(ok(await api.delete(`/api/v1/sequences/${waiting.id}`)), { id: waiting.id, object: 'sequence', deleted: true });
    made.sequence = renamed;
    made.enrollment = enrollment;
  });

  test('invoices: totals are computed by the server; client totals are refused; a sent invoice cannot be edited', async () => {
    const lines = [
      { description: 'Setup', quantity: 3, unit_amount: 333, tax_rate_bps: 825 },
      { description: 'Hours', quantity: 2.675, unit_amount: 100 },
    ];
    const invoice = await createOnce(
      api,
      '/api/v1/invoices',
      { lead_id: made.lead.id, currency: 'USD', lines, due_date: '2030-01-31', memo: 'Thanks' },
      { lead_id: made.lead.id, lines: [] },
      'inv',
      'invoice',
    );
    assert.equal(invoice.status, 'draft');
    assert.deepEqual(
      invoice.lines.map((line: Json) => [line.subtotal, line.tax, line.total]),
      [
        [999, 82, 1081],
        [268, 0, 268],
      ],
    );
    assert.equal(invoice.subtotal, 1267);
    assert.equal(invoice.tax, 82);
    assert.equal(invoice.total, 1349);
    assert.equal(invoice.due_date, '2030-01-31');

    // Totals sent by the client are refused, on the invoice and on a line, and nothing is created.
    const before = ids(await api.get('/api/v1/invoices'));
    assertError(await api.post('/api/v1/invoices', { lead_id: made.lead.id, lines, total: 1 }), 400, 'invalid_request');
    assertError(
      await api.post('/api/v1/invoices', { lead_id: made.lead.id, lines: [{ ...lines[0], total: 1, subtotal: 1, tax: 0 }] }),
      400,
      'invalid_request',
    );
    assertError(await api.patch(`/api/v1/invoices/${invoice.id}`, { subtotal: 5 }), 400, 'invalid_request');
    assert.deepEqual(ids(await api.get('/api/v1/invoices')), before);

    const edited = ok(await api.patch(`/api/v1/invoices/${invoice.id}`, { lines: [{ description: 'Flat fee', unit_amount: 5000 }] }));
    assert.equal(edited.total, 5000);
    assert.deepEqual(ok(await api.get(`/api/v1/invoices/${invoice.id}`)), edited);
    assert.deepEqual(ids(await api.get('/api/v1/invoices?status=draft')), [invoice.id]);

    const sendKey = idemKey('send');
    const sent = ok(await api.post(`/api/v1/invoices/${invoice.id}/send`, undefined, { idempotencyKey: sendKey }));
    assert.equal(sent.status, 'sent');
    assert.match(sent.sent_at, /Z$/);
    assert.deepEqual(ok(await api.post(`/api/v1/invoices/${invoice.id}/send`, undefined, { idempotencyKey: sendKey })), sent);
    assertError(await api.post(`/api/v1/invoices/${invoice.id}/send`), 409, 'conflict');
    assertError(await api.patch(`/api/v1/invoices/${invoice.id}`, { memo: 'changed' }), 409, 'conflict');
    assertError(await api.delete(`/api/v1/invoices/${invoice.id}`), 409, 'conflict');
    assert.equal(ok(await api.get(`/api/v1/invoices/${invoice.id}`)).memo, 'Thanks');
    const paid = ok(await api.post(`/api/v1/invoices/${invoice.id}/pay`));
    assert.equal(paid.status, 'paid');
    assertError(await api.post(`/api/v1/invoices/${invoice.id}/void`), 409, 'conflict');

    const draft = ok(await api.post('/api/v1/invoices', { lead_id: made.lead.id, lines: [] }), 201);
    // A draft without lines cannot be sent (README: sending needs a customer and a line).
    assertError(await api.post(`/api/v1/invoices/${draft.id}/send`), 400, 'invalid_request', 'lines');
    assert.equal(ok(await api.post(`/api/v1/invoices/${draft.id}/void`)).status, 'void');
    const doomed = ok(await api.post('/api/v1/invoices', { lead_id: made.lead.id }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/invoices/${doomed.id}`)), { id: doomed.id, object: 'invoice', deleted: true });
    made.invoice = paid;
  });

  test('projects: create once, list, get, update, deliver (once per key), then frozen; delete', async () => {
    const project = await createOnce(
      api,
      '/api/v1/projects',
      { lead_id: made.lead.id, name: 'Website', deliverables: [{ name: 'Home page' }], due_date: '2030-02-01' },
      { lead_id: made.lead.id, name: 'Other' },
      'prj',
      'project',
    );
    assert.equal(project.status, 'active');
    assert.deepEqual(project.deliverables, [{ name: 'Home page', url: null, done: false }]);
    assert.deepEqual(ids(await api.get('/api/v1/projects')), [project.id]);
    assert.deepEqual(ok(await api.get(`/api/v1/projects/${project.id}`)), project);
    const ready = ok(
      await api.patch(`/api/v1/projects/${project.id}`, {
        status: 'ready',
        deliverables: [{ name: 'Home page', url: 'https://example.com', done: true }],
      }),
    );
    assert.equal(ready.status, 'ready');
    const key = idemKey('deliver');
    const delivered = ok(await api.post(`/api/v1/projects/${project.id}/deliver`, undefined, { idempotencyKey: key }));
    assert.equal(delivered.status, 'delivered');
    assert.match(delivered.delivered_at, /Z$/);
    assert.deepEqual(ok(await api.post(`/api/v1/projects/${project.id}/deliver`, undefined, { idempotencyKey: key })), delivered);
    assertError(await api.patch(`/api/v1/projects/${project.id}`, { name: 'Renamed' }), 409, 'conflict');

    const doomed = ok(await api.post('/api/v1/projects', { lead_id: made.lead.id, name: 'Doomed' }), 201);
    assert.deepEqual(ok(await api.delete(`/api/v1/projects/${doomed.id}`)), { id: doomed.id, object: 'project', deleted: true });
    assertError(await api.get(`/api/v1/projects/${doomed.id}`), 404, 'not_found');
    made.project = delivered;
  });

  test('cursor pagination walks leads, workspaces and notes over three pages with no duplicate and no gap', async () => {
    const fresh = client(platform.url, (await platform.org()).key);
    const leads: string[] = [];
    for (let n = 0; n < 7; n++) leads.push(ok(await fresh.post('/api/v1/leads', { name: `Lead ${n}`, tags: ['page'] }), 201).id);
    const walked = await walk(fresh, '/api/v1/leads', 3);
    assert.equal(walked.pages, 3);
    assert.deepEqual(walked.ids, [...leads].reverse());
    const filtered = await walk(fresh, '/api/v1/leads?tag=page', 3);
    assert.deepEqual(filtered.ids, [...leads].reverse());

    const workspaces: string[] = [];
    for (let n = 0; n < 7; n++) workspaces.push(ok(await fresh.post('/api/v1/workspaces', { name: `Office ${n}` }), 201).id);
    const walkedWorkspaces = await walk(fresh, '/api/v1/workspaces', 3);
    assert.equal(walkedWorkspaces.pages, 3);
    assert.deepEqual(walkedWorkspaces.ids, [...workspaces].reverse());

    const first = ok(await fresh.get('/api/v1/leads?limit=3&tag=page'));
    assertError(await fresh.get(`/api/v1/leads?limit=3&tag=other&cursor=${encodeURIComponent(first.next_cursor)}`), 400, 'invalid_cursor');
  });

  test('every success carries X-RateLimit-* and Request-Id; Remaining drops by one per call', async () => {
    const metered = await platform.org({ quota: 25 });
    const m = client(platform.url, metered.key);
    await assertRateLimitHeaders(
      [
        () => m.get('/api/v1/leads'),
        () => m.post('/api/v1/leads', { name: 'Metered' }, { idempotencyKey: idemKey() }),
        () => m.get('/api/v1/workspaces'),
        () => m.get('/api/v1/themes'),
        () => m.get('/api/v1/sequences'),
        () => m.get('/api/v1/invoices'),
        () => m.get('/api/v1/projects'),
      ],
      25,
    );
  });

  test('a read key gets 403 forbidden_scope on every write route and succeeds on every read route', async () => {
    const { workspace, theme, lead, sequence, enrollment, invoice, project } = made;
    const writes: Array<[string, string, Json]> = [
      ['POST', '/api/v1/workspaces', { name: 'Nope' }],
      ['PATCH', `/api/v1/workspaces/${workspace.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/workspaces/${workspace.id}`, undefined],
      ['POST', '/api/v1/themes', { name: 'Nope', greeting: 'Nope' }],
      ['PATCH', `/api/v1/themes/${theme.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/themes/${theme.id}`, undefined],
      ['POST', `/api/v1/themes/${theme.id}/apply`, { workspace_id: workspace.id }],
      ['POST', '/api/v1/leads', { name: 'Nope' }],
      ['PATCH', `/api/v1/leads/${lead.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/leads/${lead.id}`, undefined],
      ['POST', `/api/v1/leads/${lead.id}/notes`, { body: 'Nope' }],
      ['POST', '/api/v1/sequences', { name: 'Nope', steps: [{ type: 'call' }] }],
      ['PATCH', `/api/v1/sequences/${sequence.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/sequences/${sequence.id}`, undefined],
      ['POST', `/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] }],
      ['POST', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}/stop`, {}],
      ['POST', '/api/v1/invoices', { lead_id: lead.id }],
      ['PATCH', `/api/v1/invoices/${invoice.id}`, { memo: 'Nope' }],
      ['DELETE', `/api/v1/invoices/${invoice.id}`, undefined],
      ['POST', `/api/v1/invoices/${invoice.id}/send`, undefined],
      ['POST', `/api/v1/invoices/${invoice.id}/pay`, undefined],
      ['POST', `/api/v1/invoices/${invoice.id}/void`, undefined],
      ['POST', '/api/v1/projects', { lead_id: lead.id, name: 'Nope' }],
      ['PATCH', `/api/v1/projects/${project.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/projects/${project.id}`, undefined],
      ['POST', `/api/v1/projects/${project.id}/deliver`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const response = await readApi.call(method, path, body === undefined ? {} : { body, idempotencyKey: idemKey('read') });
      assertError(response, 403, 'forbidden_scope');
    }
    assert.equal(ok(await api.get(`/api/v1/leads/${lead.id}`)).name, 'Ada Lovelace', 'nothing changed');

    const reads = [
      '/api/v1/workspaces',
      `/api/v1/workspaces/${workspace.id}`,
      '/api/v1/themes',
      `/api/v1/themes/${theme.id}`,
      '/api/v1/leads',
      '/api/v1/leads/recent?qualified_only=true',
      `/api/v1/leads/${lead.id}`,
      `/api/v1/leads/${lead.id}/notes`,
      `/api/v1/leads/${lead.id}/enrollments`,
      '/api/v1/sequences',
      `/api/v1/sequences/${sequence.id}`,
      `/api/v1/sequences/${sequence.id}/enrollments`,
      `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}`,
      '/api/v1/invoices',
      `/api/v1/invoices/${invoice.id}`,
      '/api/v1/projects',
      `/api/v1/projects/${project.id}`,
    ];
    for (const path of reads) ok(await readApi.get(path));
  });

  test("another organization gets 404 not_found for the first one's ids (also inside bodies) and empty lists", async () => {
    const { workspace, theme, lead, sequence, enrollment, invoice, project } = made;
    const attempts: Array<[string, string, Json]> = [
      ['GET', `/api/v1/workspaces/${workspace.id}`, undefined],
      ['PATCH', `/api/v1/workspaces/${workspace.id}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/workspaces/${workspace.id}`, undefined],
      ['GET', `/api/v1/themes/${theme.id}`, undefined],
      ['PATCH', `/api/v1/themes/${theme.id}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/themes/${theme.id}`, undefined],
      ['GET', `/api/v1/leads/${lead.id}`, undefined],
      ['PATCH', `/api/v1/leads/${lead.id}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/leads/${lead.id}`, undefined],
      ['GET', `/api/v1/leads/${lead.id}/notes`, undefined],
      ['POST', `/api/v1/leads/${lead.id}/notes`, { body: 'Mine' }],
      ['GET', `/api/v1/sequences/${sequence.id}`, undefined],
      ['PATCH', `/api/v1/sequences/${sequence.id}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/sequences/${sequence.id}`, undefined],
      ['GET', `/api/v1/sequences/${sequence.id}/enrollments/${enrollment.id}`, undefined],
      ['GET', `/api/v1/invoices/${invoice.id}`, undefined],
      ['PATCH', `/api/v1/invoices/${invoice.id}`, { memo: 'Mine' }],
      ['DELETE', `/api/v1/invoices/${invoice.id}`, undefined],
      ['GET', `/api/v1/projects/${project.id}`, undefined],
      ['PATCH', `/api/v1/projects/${project.id}`, { name: 'Mine' }],
      ['DELETE', `/api/v1/projects/${project.id}`, undefined],
      // Ids of the first organization inside a body.
      ['POST', '/api/v1/invoices', { lead_id: lead.id }],
      ['POST', '/api/v1/projects', { lead_id: lead.id, name: 'Mine' }],
      ['POST', '/api/v1/leads', { name: 'Mine', workspace_id: workspace.id }],
    ];
    for (const [method, path, body] of attempts) {
      assertError(await other.call(method, path, body === undefined ? {} : { body }), 404, 'not_found');
    }
    for (const path of [
      '/api/v1/workspaces',
      '/api/v1/themes',
      '/api/v1/leads',
      '/api/v1/sequences',
      '/api/v1/invoices',
      '/api/v1/projects',
    ]) {
      // The leads list pages both ways (the console's Newer and Older), so its page says prev_cursor too.
      const empty = { data: [], has_more: false, next_cursor: null, ...(path === '/api/v1/leads' ? { prev_cursor: null } : {}) };
      assert.deepEqual(ok(await other.get(path)), empty, path);
    }
    assert.equal(ok(await api.get(`/api/v1/leads/${lead.id}`)).name, 'Ada Lovelace', 'nothing changed');
  });

  test('bad input is a 4xx in the envelope, never a 500', async () => {
    assertError(await api.call('POST', '/api/v1/leads', { raw: '{"name": "Ada"' }), 400, 'invalid_request');
    assertError(await api.call('POST', '/api/v1/invoices', { raw: '[1,2' }), 400, 'invalid_request');
    assertError(await api.post('/api/v1/leads', { name: 42 }), 400, 'invalid_request', 'name');
    assertError(await api.post('/api/v1/leads', { name: 'Ada', email: 'not-an-email' }), 400, 'invalid_request', 'email');
    assertError(await api.post('/api/v1/workspaces', { name: 'X', timezone: 'Mars/Olympus' }), 400, 'invalid_request', 'timezone');
    assertError(
      await api.post('/api/v1/invoices', { lead_id: made.lead.id, lines: [{ description: 'x', unit_amount: '12' }] }),
      400,
      'invalid_request',
      'lines.0.unit_amount',
    );
    assertError(await api.post('/api/v1/sequences', { name: 'X', steps: [] }), 400, 'invalid_request', 'steps');
    assertError(await api.get('/api/v1/leads?limit=101'), 400, 'invalid_request', 'limit');
    assertError(await api.get('/api/v1/leads/lead-1'), 400, 'invalid_request', 'id');
    for (const [path, prefix] of [
      ['workspaces', 'ws'],
      ['themes', 'thm'],
      ['leads', 'lead'],
      ['sequences', 'seq'],
      ['invoices', 'inv'],
      ['projects', 'prj'],
    ] as const) {
      assertError(await api.get(`/api/v1/${path}/${missingId(prefix)}`), 404, 'not_found');
      assertError(await api.get(`/api/v1/${path}?cursor=bm90LWEtY3Vyc29y`), 400, 'invalid_cursor');
    }
    assertError(await api.post('/api/v1/invoices', { lead_id: missingId('lead') }), 404, 'not_found');
    assertError(await api.post('/api/v1/leads', { name: 'Big', note: 'x'.repeat(1_100_000) }), 413, 'payload_too_large');
    assertError(await api.post('/api/v1/leads', { name: 'Long', note: 'x'.repeat(10_001) }), 400, 'invalid_request', 'note');
  });

  test('@voice/client: workspaces, leads and notes, sequences and enrollments, invoices and projects on the real stack', async () => {
    const own = await platform.org();
    const voice = new VoiceClient({ apiKey: own.key, baseUrl: platform.url });

    const workspace = await voice.workspaces.create({ name: 'Client Office', timezone: 'Europe/Paris' });
    assert.equal((await voice.workspaces.update(workspace.id, { name: 'Client HQ' })).name, 'Client HQ');
    assert.equal((await voice.workspaces.get(workspace.id)).name, 'Client HQ');

    // Creates carry the client's own Idempotency-Key: a create answered once is one lead, however often retried.
    const lead = await voice.leads.create({ name: 'Grace Hopper', phone: '+14155550177', workspace_id: workspace.id });
    await voice.leads.notes.create(lead.id, { body: 'Prefers mornings' });
    const notes: string[] = [];
    for await (const note of voice.leads.notes.list(lead.id)) notes.push(note.body);
    assert.deepEqual(notes, ['Prefers mornings']);
    for (let n = 0; n < 4; n++) await voice.leads.create({ name: `Lead ${n}`, workspace_id: workspace.id });
    const names: string[] = [];
    for await (const listed of voice.leads.list({ workspace_id: workspace.id, limit: 2 })) names.push(listed.name ?? '');
    assert.equal(names.length, 5, 'three pages of two, walked by the iterator');
    assert.ok(names.includes('Grace Hopper'));

    const sequence = await voice.sequences.create({ name: 'Client follow-up', steps: [{ type: 'sms', body: 'Hi {{first_name}}!' }] });
    const enrolled = await voice.sequences.enrollments.create(sequence.id, { lead_ids: [lead.id] });
    const enrollment = enrolled.data[0] as { id: string };
    const completed = await eventually('the enrollment to complete', async () => {
      const current = await voice.sequences.enrollments.get(sequence.id, enrollment.id);
      return current.status === 'completed' ? current : undefined;
    });
    assert.equal(completed.history.length, 1);
    const ofLead: string[] = [];
    for await (const item of voice.leads.enrollments(lead.id)) ofLead.push(item.id);
    assert.deepEqual(ofLead, [enrollment.id]);

    const invoice = await voice.invoices.create({ lead_id: lead.id, lines: [{ description: 'Setup', quantity: 1, unit_amount: 5000 }] });
    assert.equal(invoice.status, 'draft');
    assert.equal(invoice.total, 5000);
    const invoices: string[] = [];
    for await (const listed of voice.invoices.list()) invoices.push(listed.id);
    assert.deepEqual(invoices, [invoice.id]);
    assert.equal((await voice.invoices.void(invoice.id)).status, 'void');

    const project = await voice.projects.create({ lead_id: lead.id, name: 'Client site', deliverables: [{ name: 'Home page' }] });
    assert.equal((await voice.projects.deliver(project.id)).status, 'delivered');

    // Another organization's records are not found, as a typed error.
    const stranger = new VoiceClient({ apiKey: org.key, baseUrl: platform.url });
    const error = await stranger.leads.get(lead.id).catch((caught: unknown) => caught);
    assert.ok(error instanceof VoiceApiError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.equal(await voice.leads.delete(lead.id).then((deleted) => deleted.deleted), true);
  });
});
