// Test mode's promise, over the whole catalogue: a live key and a test key of one organization see disjoint
// data through every REST list and get operation and every MCP read tool. Each mode gets one record of every
// kind; then every GET route the definitions declare, and every read tool the MCP server lists, is asked by
// each key, and no answer may name a record of the other mode, while each mode's records are found by its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type FakeProvider,
  fakeProvidersEnv,
  knowingAnswers,
  type Receiver,
  startFakeAnthropic,
  startFakeOpenAi,
  startReceiver,
} from '@voice/kit/testing';
import { allOperations, testTwinOf } from '@voice/proto';
import { type Client as ApiClient, client, type Json, ok, type Platform, startPlatform } from '../support/harness.js';

/** Every prefixed id (`lead_…`, `call_…`) anywhere in a JSON answer. */
function idsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(/\b[a-z]{2,4}_[0-9A-Za-z]{8,40}\b/g)) found.add(match[0]);
  } else if (Array.isArray(value)) {
    for (const item of value) idsIn(item, found);
  } else if (value && typeof value === 'object') {
    // An audit record's path is the caller's own request echoed back: a key that asked for the other mode's
    // id (and got 404) finds that id in its own log, which is no leak. Whether such a request is already on
    // the log's first page depends on when the audit writer flushed, so counting it made the test flaky.
    const isAuditRecord = (value as { object?: unknown }).object === 'audit_record';
    for (const [key, item] of Object.entries(value)) if (!(isAuditRecord && key === 'path')) idsIn(item, found);
  }
  return found;
}

/** One mode's records: one of each kind, by the path segment that names its kind in a route. */
interface Seeded {
  byKind: Record<string, string>;
  /** Every id the mode made (its key's too), which the other mode must never see. */
  ids: Set<string>;
  phone: string;
  word: string;
}

describe('test mode isolation over every REST read and every MCP read tool', () => {
  let platform: Platform;
  let receiver: Receiver;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  const keys = {} as Record<'live' | 'test', string>;
  const seeded = {} as Record<'live' | 'test', Seeded>;
  const mcp = {} as Record<'live' | 'test', Client>;

  async function seed(api: ApiClient, name: 'live' | 'test', keyId: string, digits: string): Promise<Seeded> {
    const phone = `+1415555${digits}`;
    const word = `${name}zebra${digits}`;
    const lead = ok(await api.post('/api/v1/leads', { name: `${name} lead`, email: `${name}@example.com`, phone }), 201);
    const note = ok(await api.post(`/api/v1/leads/${lead.id}/notes`, { body: `${name} note` }), 201);
    const workspace = ok(await api.post('/api/v1/workspaces', { name: `${name} workspace` }), 201);
    const theme = ok(await api.post('/api/v1/themes', { name: `${name} theme`, greeting: 'Hello' }), 201);
    const sequence = ok(
      await api.post('/api/v1/sequences', { name: `${name} sequence`, steps: [{ type: 'wait', delay_seconds: 86_400 }, { type: 'call' }] }),
      201,
    );
    const enrollment = ok(await api.post(`/api/v1/sequences/${sequence.id}/enrollments`, { lead_ids: [lead.id] }), 201).data[0];
    const invoice = ok(await api.post('/api/v1/invoices', { lead_id: lead.id }), 201);
    const project = ok(await api.post('/api/v1/projects', { lead_id: lead.id, name: `${name} project` }), 201);
    const call = ok(await api.post('/api/v1/phone/calls', { to: phone }), 201);
    const sms = ok(await api.post('/api/v1/phone/sms', { to: phone, body: `${name} message` }), 201);
    const dnc = ok(await api.post('/api/v1/phone/dnc', { phone: `+1212555${digits}` }), 201);
    const document = ok(
      await api.post('/api/v1/knowledge/documents', {
        title: `${name} help`,
        text: `The ${word} answers every question about ${name} data.`,
      }),
      201,
    );
    const endpoint = ok(await api.post('/api/v1/webhooks', { url: `${receiver.url}/${name}`, event_types: ['*'] }), 201);
    const delivery = ok(await api.post(`/api/v1/webhooks/${endpoint.id}/test`), 202);
    const records: Record<string, Json> = {
      leads: lead,
      notes: note,
      workspaces: workspace,
      themes: theme,
      sequences: sequence,
      enrollments: enrollment,
      invoices: invoice,
      projects: project,
      calls: call,
      sms,
      dnc,
      documents: document,
      webhooks: endpoint,
      deliveries: delivery,
    };
    const byKind = Object.fromEntries(Object.entries(records).map(([kind, record]) => [kind, record.id as string]));
    return { byKind, ids: new Set([...Object.values(byKind), keyId]), phone: `+1212555${digits}`, word };
  }

  /** Asks for an approval through MCP (a lead's deletion), so each mode has one. */
  async function requestApproval(name: 'live' | 'test'): Promise<string> {
    const result = (await mcp[name].callTool({
      name: 'service_delete_lead',
      arguments: { lead_id: seeded[name].byKind.leads },
    })) as CallToolResult;
    const pending = result.structuredContent as { approval_id: string };
    assert.match(pending.approval_id, /^apr_/, JSON.stringify(result.content));
    return pending.approval_id;
  }

  before(async () => {
    receiver = await startReceiver();
    [openai, anthropic] = await Promise.all([
      startFakeOpenAi(knowingAnswers('Acme Voice')),
      startFakeAnthropic(knowingAnswers('Acme Voice')),
    ]);
    platform = await startPlatform({
      recall: {
        ...fakeProvidersEnv(openai, anthropic),
      },
      gateway: { AUDIT_FLUSH_MS: '50' },
      auditWorker: true,
    });
    const org = await platform.org({ plan: 'pro', quota: 100_000 });
    const testKey = (await platform.gateway.admin({
      kind: 'key.create',
      orgId: testTwinOf(org.orgId),
      scope: 'read-write',
      monthlyQuota: 1,
    })) as {
      id: string;
      key: string;
    };
    keys.live = org.key;
    keys.test = testKey.key;
    seeded.live = await seed(client(platform.url, keys.live), 'live', org.keyId, '0101');
    seeded.test = await seed(client(platform.url, keys.test), 'test', testKey.id, '0202');
    for (const name of ['live', 'test'] as const) {
      const connected = new Client({ name: `isolation-${name}`, version: '1.0.0' });
      await connected.connect(
        new StreamableHTTPClientTransport(new URL(`${platform.url}/api/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${keys[name]}` } },
        }),
      );
      mcp[name] = connected;
      const approval = await requestApproval(name);
      seeded[name].byKind.approvals = approval;
      seeded[name].ids.add(approval);
    }
  });
  after(async () => {
    await Promise.all(Object.values(mcp).map((connected) => connected.close()));
    await platform?.close();
    await Promise.all([receiver?.close(), openai?.close(), anthropic?.close()]);
  });

  const other = (name: 'live' | 'test') => (name === 'live' ? 'test' : 'live');

  /** A route's path with its parameters filled from one mode's records: the segment before each names its kind. */
  function fill(path: string, records: Seeded): string {
    const segments = path.split('/');
    return segments
      .map((segment, index) => {
        if (!segment.startsWith(':')) return segment;
        const kind = segment === ':enrollment_id' ? 'enrollments' : segment === ':delivery_id' ? 'deliveries' : (segments[index - 1] ?? '');
        const id = records.byKind[kind];
        assert.ok(id, `no ${kind} record to fill ${segment} of ${path}: add one to seed()`);
        return id;
      })
      .join('/');
  }

  const readRoutes = allOperations.flatMap((operation) =>
    operation.testOnly ? [] : operation.http.filter((route) => route.method === 'GET').map((route) => ({ operation, route })),
  );

  test('every GET route: each key sees only its own mode, finds its own records, and the other mode’s ids are 404', async () => {
    assert.ok(readRoutes.length >= 30, `${readRoutes.length} GET routes`);
    const seen = { live: new Set<string>(), test: new Set<string>() };
    for (const { operation, route } of readRoutes) {
      for (const name of ['live', 'test'] as const) {
        const api = client(platform.url, keys[name]);
        const query = operation.name === 'checkDnc' ? `?phone=${encodeURIComponent(seeded[name].phone)}` : '';
        const answer = await api.get(`${fill(route.path, seeded[name])}${query}`);
        assert.equal(answer.status, 200, `${name} ${route.path}: ${answer.text}`);
        const found = idsIn(answer.body);
        for (const id of found) seen[name].add(id);
        const leaked = [...found].filter((id) => seeded[other(name)].ids.has(id));
        assert.deepEqual(leaked, [], `${name} key's ${route.path} names the ${other(name)} mode's records`);
        if (operation.name === 'checkDnc') {
          const theirs = await api.get(`${route.path}?phone=${encodeURIComponent(seeded[other(name)].phone)}`);
          assert.equal(theirs.body.listed, false, `${name} sees the ${other(name)} mode's do-not-call entry`);
        }
        if (route.path.includes(':')) {
          const theirs = await api.get(fill(route.path, seeded[other(name)]));
          assert.equal(theirs.status, 404, `${name} key's ${route.path} with the ${other(name)} mode's ids: ${theirs.text}`);
        }
      }
    }
    for (const name of ['live', 'test'] as const) {
      const missed = Object.entries(seeded[name].byKind).filter(([, id]) => !seen[name].has(id));
      assert.deepEqual(missed, [], `${name} records no GET route showed its own key`);
    }
  });

  test('every MCP read tool: each key sees only its own mode; the other mode’s ids are errors', async () => {
    const argumentFor: Record<string, (records: Seeded) => unknown> = {
      lead_id: (records) => records.byKind.leads,
      call_id: (records) => records.byKind.calls,
      sms_id: (records) => records.byKind.sms,
      sequence_id: (records) => records.byKind.sequences,
      invoice_id: (records) => records.byKind.invoices,
      project_id: (records) => records.byKind.projects,
      theme_id: (records) => records.byKind.themes,
      workspace_id: (records) => records.byKind.workspaces,
      approval_id: (records) => records.byKind.approvals,
      phone: (records) => records.phone,
      query: (records) => records.word,
      brand: () => 'Acme Voice',
      url: () => 'https://acme.example',
    };
    const readTools = (await mcp.test.listTools()).tools.filter((tool) => tool.annotations?.readOnlyHint === true);
    const liveReadTools = (await mcp.live.listTools()).tools.filter((tool) => tool.annotations?.readOnlyHint === true);
    assert.deepEqual(
      readTools.map((tool) => tool.name),
      liveReadTools.map((tool) => tool.name),
      'both modes have the same read tools',
    );
    assert.ok(readTools.length >= 25, `${readTools.length} read tools`);
    const seen = { live: new Set<string>(), test: new Set<string>() };
    for (const tool of readTools) {
      const required = (tool.inputSchema.required ?? []) as string[];
      for (const name of ['live', 'test'] as const) {
        const args = (records: Seeded) =>
          Object.fromEntries(
            required.map((argument) => {
              const value = argumentFor[argument];
              assert.ok(value, `${tool.name}: no value for its required argument ${argument}`);
              return [argument, value(records)];
            }),
          );
        const result = (await mcp[name].callTool({ name: tool.name, arguments: args(seeded[name]) })) as CallToolResult;
        assert.notEqual(result.isError, true, `${name} ${tool.name}: ${JSON.stringify(result.content)}`);
        const found = idsIn(result.structuredContent);
        for (const id of found) seen[name].add(id);
        const leaked = [...found].filter((id) => seeded[other(name)].ids.has(id));
        assert.deepEqual(leaked, [], `${name} key's ${tool.name} names the ${other(name)} mode's records`);
        const ofIds = required.filter((argument) => argument.endsWith('_id'));
        if (ofIds.length > 0) {
          const theirs = (await mcp[name].callTool({ name: tool.name, arguments: args(seeded[other(name)]) })) as CallToolResult;
          assert.equal(
            theirs.isError,
            true,
            `${name} key's ${tool.name} with the ${other(name)} mode's ids: ${JSON.stringify(theirs.content)}`,
          );
          assert.match((theirs.content[0] as { text: string }).text, /not_found/, tool.name);
        }
      }
    }
    for (const name of ['live', 'test'] as const) {
      // What MCP's read tools reach: everything but notes, webhooks and deliveries, which no read tool lists.
      const reachable = Object.entries(seeded[name].byKind).filter(([kind]) => !['notes', 'webhooks', 'deliveries'].includes(kind));
      const missed = reachable.filter(([, id]) => !seen[name].has(id));
      assert.deepEqual(missed, [], `${name} records no MCP read tool showed its own key`);
    }
  });
});
