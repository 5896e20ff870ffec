// The MCP server as an agent meets it: the SDK's own client over streamable HTTP, through the gateway (keys,
// scopes, quota, signed identity), with the leads, telephony and recall services behind it on NATS. The same
// scenarios run in both protocol eras: 2025-11-25 with the v1 SDK's client, 2026-07-28 with the v2 SDK's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { bearer, createOrgWithKey, type Platform, startPlatform, type TestGateway } from '@voice/gateway/testing';
import { newId } from '@voice/kit';
import {
  eventually,
  type FakeProvider,
  type FakeSlack,
  type FakeTelegram,
  fakeProvidersEnv,
  knowingAnswers,
  startFakeAnthropic,
  startFakeOpenAi,
  startFakeSlack,
  startFakeTelegram,
  testIdentity,
} from '@voice/kit/testing';
import { type Identity, leadsRpc, mcpRpc, type PendingApproval } from '@voice/proto';
import { allTools } from '../src/mcp/catalog.js';
import { isTestOnlyTool } from '../src/mcp/tool.js';
import { modernRpcWith, telegramBotToken, telegramWebhookSecret } from './support/harness.js';

const approverChat = '-1002000000001';
/** What a live key is offered: every tool but test mode's helpers (test-mode.int.test.ts covers those). */
const liveTools = allTools.filter((tool) => !isTestOnlyTool(tool));

/**
 * The two eras' clients as the scenarios use them; the 2026 one pinned to 2026-07-28 (no fallback), and
 * each validating every structured result against the listed output schema with its own validator.
 */
const eras = [
  { name: '2025-11-25', connect: (url: URL, init: RequestInit) => legacyClient(url, init), listBudget: 60_000 },
  // Full output schemas (no pointers to other tools): bigger, bounded here against growth (README, MCP).
  { name: '2026-07-28', connect: (url: URL, init: RequestInit) => modernClient(url, init), listBudget: 85_000 },
] as const;

/** What the scenarios need of a client, in either era. */
interface EraClient {
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: { readOnlyHint?: boolean }; outputSchema?: object }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
  /** The 2025 client's own object, for the 2025-only task scenario. */
  legacy?: Client;
}

async function legacyClient(url: URL, requestInit: RequestInit): Promise<EraClient> {
  const client = new Client({ name: 'stack-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return Object.assign(client, { legacy: client });
}

async function modernClient(url: URL, requestInit: RequestInit): Promise<EraClient> {
  const client = new ModernClient({ name: 'stack-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(url, { requestInit }));
  return client as unknown as EraClient;
}

function ok<T = Record<string, unknown>>(result: CallToolResult, what: string): T {
  assert.notEqual(result.isError, true, `${what}: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, `${what}: structuredContent`);
  assert.equal(
    (result.content[0] as { text?: string }).text,
    JSON.stringify(result.structuredContent),
    `${what}: text equals structuredContent`,
  );
  return result.structuredContent as T;
}

function failure(result: CallToolResult, what: string): string {
  assert.equal(result.isError, true, `${what} should fail, got ${JSON.stringify(result.structuredContent)}`);
  assert.equal(result.structuredContent, undefined);
  return (result.content[0] as { text: string }).text;
}

for (const era of eras) {
  describe(`MCP through the gateway with the SDK client, ${era.name}`, () => {
    let platform: Platform<'leads' | 'telephony' | 'recall' | 'mcp'>;
    let gateway: TestGateway;
    let gatewayUrl: string;
    let telegram: FakeTelegram;
    let slack: FakeSlack;
    let openai: FakeProvider;
    let anthropic: FakeProvider;
    let orgA: { orgId: string; keyId: string; key: string };
    let orgB: { orgId: string; keyId: string; key: string };
    let readKey: string;
    let clientA: EraClient;
    let clientB: EraClient;
    let clientRead: EraClient;
    const calledTools = new Set<string>();
    const rejectedTools = new Set<string>();

    /** Each tool's output schema as the SDK's client compiles it (AJV), from a read-write key's tools/list. */
    const outputValidators = new Map<string, ReturnType<AjvJsonSchemaValidator['getValidator']>>();

    async function connect(key: string): Promise<EraClient> {
      const client = await era.connect(new URL(`${gatewayUrl}/api/mcp`), { headers: { Authorization: `Bearer ${key}` } });
      // After tools/list the client validates every structured result against the tool's output schema and
      // throws on a mismatch, so every successful call below has passed the SDK's own check.
      await client.listTools();
      return client;
    }

    async function call(client: EraClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.structuredContent) {
        // The same check, stated here: the lean schema is satisfied, and it is no empty promise (a result
        // naming another kind of record fails it).
        const validator = outputValidators.get(name);
        assert.ok(validator, `${name} has an output schema`);
        assert.deepEqual(validator(result.structuredContent).errorMessage, undefined, `${name} result satisfies its output schema`);
        if (typeof result.structuredContent.object === 'string') {
          assert.equal(validator({ ...result.structuredContent, object: 'not_a_record' }).valid, false, `${name}: object is checked`);
        }
      }
      return result;
    }

    /** A lead and a draft invoice for it, made through the tools: what an approval tool then sends. */
    async function draftInvoiceFor(client: EraClient, leadName: string): Promise<{ id: string }> {
      const lead = ok<{ id: string }>(await call(client, 'service_create_lead', { name: leadName }), 'lead');
      return ok<{ id: string }>(
        await call(client, 'service_draft_invoice', { lead_id: lead.id, lines: [{ description: 'Setup', unit_amount: 5_000 }] }),
        'draft',
      );
    }

    async function valid<T = Record<string, unknown>>(name: string, args: Record<string, unknown>, client = clientA): Promise<T> {
      calledTools.add(name);
      return ok<T>(await call(client, name, args), name);
    }

    async function invalid(name: string, args: Record<string, unknown>, expected: RegExp = /^invalid_request: /): Promise<void> {
      rejectedTools.add(name);
      assert.match(failure(await call(clientA, name, args), name), expected, name);
    }

    before(async () => {
      [telegram, slack, openai, anthropic] = await Promise.all([
        startFakeTelegram(telegramBotToken),
        startFakeSlack('xoxb-stack'),
        startFakeOpenAi(knowingAnswers('Acme Voice')),
        startFakeAnthropic(knowingAnswers('Acme Voice')),
      ]);
      // The dialer is off, so a queued call stays queued; sequence delays and the brand page check are the real ones.
      platform = await startPlatform({
        services: ['leads', 'telephony', 'recall', 'mcp'],
        telephony: { WORKERS: 'outbox' },
        leads: { SEQUENCE_DELAY_SCALE: '1' },
        recall: {
          BRAND_PAGE_CHECK: 'true',
          ...fakeProvidersEnv(openai, anthropic),
        },
        mcp: {
          TELEGRAM_BOT_TOKEN: telegramBotToken,
          TELEGRAM_WEBHOOK_SECRET: telegramWebhookSecret,
          TELEGRAM_API_BASE_URL: telegram.baseUrl,
          SLACK_API_BASE_URL: slack.apiBaseUrl,
        },
        gateway: { AUDIT_FLUSH_MS: '50' },
        auditWorker: true,
      });
      gateway = platform.gateway;
      gatewayUrl = platform.url;

      orgA = await createOrgWithKey(gateway, { plan: 'pro', quota: 10_000 });
      orgB = await createOrgWithKey(gateway, { plan: 'pro', quota: 10_000 });
      readKey = ((await gateway.admin({ kind: 'key.create', orgId: orgA.orgId, scope: 'read', monthlyQuota: 1_000 })) as { key: string })
        .key;
      // A chat id links nothing; an owner's one-time code, sent from the chat through the public hook, does.
      const byId = await fetch(`${gatewayUrl}/api/v1/approvals/channels/telegram`, {
        method: 'PUT',
        headers: { ...bearer(orgA.key), 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: approverChat }),
      });
      assert.equal(byId.status, 403);
      const owner = newId('user');
      const code = await platform.mcp.deps.bus.call(
        mcpRpc.startChannelLink,
        testIdentity({ org_id: orgA.orgId, key_id: owner, user_id: owner }),
        { kind: 'telegram' },
      );
      const linked = await fetch(`${gatewayUrl}/api/hooks/telegram`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': telegramWebhookSecret },
        body: JSON.stringify({
          update_id: 99,
          message: { message_id: 9, chat: { id: Number(approverChat), type: 'group' }, date: 1, text: code.command },
        }),
      });
      assert.equal(linked.status, 200);
      const replied = telegram.callsOf('sendMessage').find((item) => String(item.body.chat_id) === approverChat);
      assert.match(String(replied?.body.text), /^Linked: /);
      [clientA, clientB, clientRead] = await Promise.all([connect(orgA.key), connect(orgB.key), connect(readKey)]);
      const ajv = new AjvJsonSchemaValidator();
      for (const tool of (await clientA.listTools()).tools) {
        if (tool.outputSchema) outputValidators.set(tool.name, ajv.getValidator(tool.outputSchema));
      }
    });

    after(async () => {
      await Promise.allSettled([clientA?.close(), clientB?.close(), clientRead?.close()]);
      await platform?.close();
      await Promise.allSettled([telegram?.close(), slack?.close(), openai?.close(), anthropic?.close()]);
    });

    test('tools/list: every tool for a read-write key, only the read tools for a read key', async () => {
      const all = await clientA.listTools();
      assert.equal(all.tools.length, liveTools.length);
      // The size budget of test/tools.test.ts, here as the SDK client received the list through the gateway.
      assert.ok(JSON.stringify(all).length < era.listBudget, `tools/list is ${JSON.stringify(all).length} characters`);
      assert.ok(all.tools.every((tool) => tool.annotations && tool.outputSchema));
      const readOnly = await clientRead.listTools();
      const readNames = readOnly.tools.map((tool) => tool.name);
      assert.equal(readNames.length, all.tools.filter((tool) => tool.annotations?.readOnlyHint === true).length);
      assert.ok(readOnly.tools.every((tool) => tool.annotations?.readOnlyHint === true));
      assert.ok(readNames.includes('service_recent_leads'));
      assert.ok(!readNames.includes('service_send_invoice'));
      const refused = failure(await call(clientRead, 'service_create_lead', { name: 'Nope' }), 'read key write');
      assert.equal(
        refused,
        'forbidden_scope: service_create_lead changes data and this key is read-only; this tool needs a read-write key; ask the operator for one.',
      );
    });

    test('a browser page on a foreign origin gets 403 in the error envelope', async () => {
      const response = await fetch(`${gatewayUrl}/api/mcp`, {
        method: 'POST',
        headers: {
          ...bearer(orgA.key),
          origin: 'https://evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(response.status, 403);
      const body = (await response.json()) as { error: { code: string; request_id?: string } };
      assert.equal(body.error.code, 'forbidden');
      assert.ok(body.error.request_id);
    });

    test('every tool, with valid and with invalid arguments; other organizations’ ids are not_found', async () => {
      const identityA: Identity = testIdentity({ org_id: orgA.orgId, key_id: orgA.keyId });
      const viaLeads = platform.leads.deps.bus;

      // Leads.
      const lead = await valid<{ id: string }>('service_create_lead', {
        name: 'Jane Roe',
        phone: '+14155550123',
        email: 'jane@example.com',
        status: 'qualified',
      });
      const other = await valid<{ id: string }>('service_create_lead', { name: 'Old Lead', company: 'Globex', idempotency_key: 'lead-1' });
      const recent = await valid<{ data: Array<{ id: string }> }>('service_recent_leads', { since_hours: 24, qualified_only: true });
      assert.deepEqual(
        recent.data.map((item) => item.id),
        [lead.id],
      );
      const listed = await valid<{ data: Array<{ id: string }> }>('service_list_leads', { q: 'globex' });
      assert.deepEqual(
        listed.data.map((item) => item.id),
        [other.id],
      );
      assert.equal((await valid<{ id: string }>('service_get_lead', { lead_id: lead.id })).id, lead.id);
      assert.deepEqual((await valid<{ tags: string[] }>('service_update_lead', { lead_id: lead.id, tags: ['vip'] })).tags, ['vip']);
      await valid('service_add_lead_note', { lead_id: lead.id, body: 'Prefers mornings.' });
      const deletion = await valid<PendingApproval>('service_delete_lead', { lead_id: other.id });
      assert.equal(deletion.status, 'pending_approval');

      // Calls, SMS, do-not-call.
      const queued = await valid<{ id: string; status: string }>('service_queue_call', { to: '+14155550123', lead_id: lead.id });
      assert.equal(queued.status, 'queued');
      assert.equal((await valid<{ data: unknown[] }>('service_list_calls', { direction: 'outbound', lead_id: lead.id })).data.length, 1);
      assert.equal((await valid<{ id: string }>('service_get_call', { call_id: queued.id })).id, queued.id);
      assert.equal((await valid<{ total: number }>('service_call_stats', {})).total, 1);
      assert.equal((await valid<{ status: string }>('service_cancel_call', { call_id: queued.id })).status, 'canceled');
      const sms = await valid<{ id: string }>('service_send_sms', { to: '+14155550123', body: 'Hello from the agent' });
      assert.equal((await valid<{ data: unknown[] }>('service_list_sms', {})).data.length, 1);
      assert.equal((await valid<{ id: string }>('service_get_sms', { sms_id: sms.id })).id, sms.id);
      await valid('service_add_dnc', { phone: '+14155550199', channel: 'all' });
      assert.equal((await valid<{ listed: boolean }>('service_check_dnc', { phone: '+14155550199' })).listed, true);
      assert.equal((await valid<{ data: unknown[] }>('service_list_dnc', {})).data.length, 1);
      assert.match(failure(await call(clientA, 'service_queue_call', { to: '+14155550199' }), 'dnc'), /^dnc_blocked: .*do not contact it/);
      assert.equal((await valid<PendingApproval>('service_remove_dnc', { phone: '+14155550199' })).status, 'pending_approval');

      // Sequences (created over NATS: there is no tool for it).
      const sequence = await viaLeads.call(leadsRpc.createSequence, identityA, {
        name: 'Nurture',
        steps: [{ type: 'wait', delay_seconds: 86_400 }],
      });
      assert.equal((await valid<{ data: unknown[] }>('service_list_sequences', {})).data.length, 1);
      assert.equal((await valid<{ steps: unknown[] }>('service_get_sequence', { sequence_id: sequence.id })).steps.length, 1);
      assert.equal(
        (await valid<{ data: unknown[] }>('service_enroll_sequence', { sequence_id: sequence.id, lead_ids: [lead.id] })).data.length,
        1,
      );
      assert.equal((await valid<{ data: unknown[] }>('service_list_enrollments', { sequence_id: sequence.id })).data.length, 1);
      assert.equal(
        (await valid<{ status: string }>('service_unenroll_sequence', { sequence_id: sequence.id, lead_id: lead.id })).status,
        'stopped',
      );

      // Invoices and projects.
      const invoice = await valid<{ id: string; total: number }>('service_draft_invoice', {
        lead_id: lead.id,
        lines: [{ description: 'Setup', unit_amount: 25_000 }],
      });
      assert.equal((await valid<{ memo: string }>('service_update_invoice', { invoice_id: invoice.id, memo: 'Thanks!' })).memo, 'Thanks!');
      assert.equal((await valid<{ data: unknown[] }>('service_list_invoices', { status: 'draft' })).data.length, 1);
      assert.equal((await valid<{ total: number }>('service_get_invoice', { invoice_id: invoice.id })).total, 25_000);
      assert.equal((await valid<PendingApproval>('service_send_invoice', { invoice_id: invoice.id })).status, 'pending_approval');
      const project = await viaLeads.call(leadsRpc.createProject, identityA, { lead_id: lead.id, name: 'Website' });
      assert.equal((await valid<{ data: unknown[] }>('service_list_projects', { status: 'active' })).data.length, 1);
      assert.equal((await valid<{ name: string }>('service_get_project', { project_id: project.id })).name, 'Website');
      assert.equal(
        (await valid<{ status: string }>('service_update_project', { project_id: project.id, status: 'ready', notes: 'QA done' })).status,
        'ready',
      );
      assert.equal((await valid<PendingApproval>('service_deliver_project', { project_id: project.id })).status, 'pending_approval');

      // Themes and workspaces (created over NATS).
      const theme = await viaLeads.call(leadsRpc.createTheme, identityA, { name: 'Warm', greeting: 'Hi, thanks for calling!' });
      const workspace = await viaLeads.call(leadsRpc.createWorkspace, identityA, { name: 'North office' });
      assert.equal((await valid<{ data: unknown[] }>('service_list_themes', {})).data.length, 1);
      assert.equal((await valid<{ name: string }>('service_get_theme', { theme_id: theme.id })).name, 'Warm');
      assert.equal(
        (await valid<{ default_theme_id: string }>('service_apply_theme', { theme_id: theme.id, workspace_id: workspace.id }))
          .default_theme_id,
        theme.id,
      );
      assert.equal((await valid<{ data: unknown[] }>('service_list_workspaces', {})).data.length, 1);
      assert.equal((await valid<{ name: string }>('service_get_workspace', { workspace_id: workspace.id })).name, 'North office');
      assert.equal(
        (await valid<{ timezone: string }>('service_update_workspace', { workspace_id: workspace.id, timezone: 'America/Chicago' }))
          .timezone,
        'America/Chicago',
      );

      // Knowledge and brand.
      const document = await valid<{ id: string }>('service_add_knowledge_document', {
        title: 'Opening hours',
        text: 'Our office is open Monday to Friday from 9am to 5pm. On Saturdays the phone line is staffed from 10am to 2pm.',
      });
      const recalled = await valid<{ results: Array<{ document_id: string }> }>('service_recall', { query: 'saturday opening hours' });
      assert.equal(recalled.results[0]?.document_id, document.id);
      const brand = await valid<{ brand: string; probes: unknown[] }>('service_brand_score', {
        brand: 'Acme Voice',
        url: 'https://acme.example',
      });
      assert.equal(brand.probes.length, 2);

      // Platform: approvals, usage, audit log.
      const approvals = await valid<{ data: Array<{ id: string; status: string }> }>('service_list_approvals', { status: 'pending' });
      assert.equal(approvals.data.length, 4);
      assert.equal(
        (await valid<{ tool: string }>('service_get_approval', { approval_id: deletion.approval_id })).tool,
        'service_delete_lead',
      );
      const usage = await valid<{ plan: string; monthly: { used: number; quota: number } }>('service_get_usage', {});
      assert.equal(usage.plan, 'pro');
      assert.equal(usage.monthly.quota, 10_000);
      assert.ok(usage.monthly.used > 40);
      const audit = await eventually('audit records of MCP calls', async () => {
        const page = ok<{ data: Array<{ path: string }> }>(await call(clientA, 'service_list_audit_log', { limit: 5 }), 'audit');
        return page.data.some((record) => record.path === '/api/mcp') ? page : undefined;
      });
      calledTools.add('service_list_audit_log');
      assert.ok(audit.data.length <= 5);

      // Cursor paging on a list tool: two pages, no overlap.
      const first = await valid<{ data: Array<{ id: string }>; next_cursor: string | null }>('service_list_leads', { limit: 1 });
      assert.ok(first.next_cursor);
      const second = await valid<{ data: Array<{ id: string }> }>('service_list_leads', { limit: 1, cursor: first.next_cursor });
      assert.notEqual(second.data[0]?.id, first.data[0]?.id);
      await invalid('service_list_leads', { limit: 1, cursor: first.next_cursor, status: 'won' }, /^invalid_cursor: /);

      // Invalid arguments, one call per tool: each an isError result naming what to fix.
      const invalidCalls: Array<[string, Record<string, unknown>]> = [
        ['service_recent_leads', { since_hours: 0 }],
        ['service_list_leads', { limit: 101 }],
        ['service_get_lead', { lead_id: 'call_12345678' }],
        ['service_create_lead', { email: 'not-an-email' }],
        ['service_update_lead', { lead_id: lead.id }],
        ['service_add_lead_note', { lead_id: lead.id, body: '' }],
        ['service_delete_lead', {}],
        ['service_list_calls', { direction: 'sideways' }],
        ['service_get_call', { call_id: 'nope' }],
        ['service_queue_call', { to: '555-0100' }],
        ['service_cancel_call', { call_id: 42 }],
        ['service_call_stats', { created_after: 'yesterday' }],
        ['service_list_sms', { limit: 0 }],
        ['service_get_sms', { sms_id: 'sms_!' }],
        ['service_send_sms', { to: '+14155550123', body: '' }],
        ['service_list_dnc', { channel: 'fax' }],
        ['service_check_dnc', {}],
        ['service_add_dnc', { phone: '+1' }],
        ['service_remove_dnc', { phone: 'everyone' }],
        ['service_list_sequences', { workspace_id: 'thm_12345678' }],
        ['service_get_sequence', {}],
        ['service_enroll_sequence', { sequence_id: sequence.id, lead_ids: [] }],
        ['service_unenroll_sequence', { sequence_id: sequence.id }],
        ['service_list_enrollments', { status: 'paused' }],
        ['service_list_invoices', { status: 'overdue' }],
        ['service_get_invoice', { invoice_id: '' }],
        ['service_draft_invoice', { lead_id: lead.id, lines: [{ description: 'x', unit_amount: -1 }] }],
        ['service_update_invoice', { invoice_id: invoice.id, currency: 'dollars' }],
        ['service_send_invoice', { invoice_id: invoice.id, force: true }],
        ['service_list_projects', { status: 'archived' }],
        ['service_get_project', { project_id: 'prj' }],
        ['service_update_project', { project_id: project.id, status: 'delivered' }],
        ['service_deliver_project', { project_id: null }],
        ['service_list_themes', { cursor: '' }],
        ['service_get_theme', { theme_id: 'ws_12345678' }],
        ['service_apply_theme', { theme_id: theme.id }],
        ['service_list_workspaces', { limit: 'many' }],
        ['service_get_workspace', { workspace_id: 'ws_' }],
        ['service_update_workspace', { workspace_id: workspace.id, timezone: 'Mars/Olympus' }],
        ['service_recall', { query: '' }],
        ['service_brand_score', { brand: 'Acme', url: 'ftp://acme.example' }],
        ['service_add_knowledge_document', { title: 'No text' }],
        ['service_list_approvals', { status: 'maybe' }],
        ['service_get_approval', { approval_id: 'apr_x' }],
        ['service_get_usage', { key_id: 'key_12345678' }],
        ['service_list_audit_log', { status: 42 }],
      ];
      for (const [name, args] of invalidCalls) await invalid(name, args);

      // Another organization: the same ids are not_found, and its lists are empty.
      const crossOrg: Array<[string, Record<string, unknown>]> = [
        ['service_get_lead', { lead_id: lead.id }],
        ['service_update_lead', { lead_id: lead.id, status: 'lost' }],
        ['service_add_lead_note', { lead_id: lead.id, body: 'hijack' }],
        ['service_delete_lead', { lead_id: lead.id }],
        ['service_get_call', { call_id: queued.id }],
        ['service_cancel_call', { call_id: queued.id }],
        ['service_get_sms', { sms_id: sms.id }],
        ['service_queue_call', { to: '+14155550124', lead_id: lead.id }],
        ['service_send_sms', { to: '+14155550124', body: 'hijack', lead_id: lead.id }],
        ['service_get_sequence', { sequence_id: sequence.id }],
        ['service_enroll_sequence', { sequence_id: sequence.id, lead_ids: [lead.id] }],
        ['service_get_invoice', { invoice_id: invoice.id }],
        ['service_update_invoice', { invoice_id: invoice.id, memo: 'mine now' }],
        ['service_send_invoice', { invoice_id: invoice.id }],
        ['service_get_project', { project_id: project.id }],
        ['service_deliver_project', { project_id: project.id }],
        ['service_get_theme', { theme_id: theme.id }],
        ['service_get_workspace', { workspace_id: workspace.id }],
        ['service_apply_theme', { theme_id: theme.id, workspace_id: workspace.id }],
        ['service_get_approval', { approval_id: deletion.approval_id }],
      ];
      for (const [name, args] of crossOrg) {
        const text = failure(await call(clientB, name, args), `${name} across organizations`);
        assert.match(text, /^not_found: /, name);
        // The argument named is one the agent wrote (`lead_id`), never the operation's own field (`id`).
        const named = /\(argument ([\w.]+)\)/.exec(text)?.[1];
        if (named !== undefined) assert.ok((named.split('.')[0] as string) in args, `${name}: ${text}`);
      }
      assert.match(failure(await call(clientB, 'service_get_lead', { lead_id: lead.id }), 'get_lead'), /\(argument lead_id\)/);
      for (const name of [
        'service_list_leads',
        'service_list_calls',
        'service_list_sms',
        'service_list_invoices',
        'service_list_approvals',
      ]) {
        assert.deepEqual(ok<{ data: unknown[] }>(await call(clientB, name, {}), name).data, [], name);
      }

      assert.equal(calledTools.size, liveTools.length, `called: ${[...calledTools].join(', ')}`);
      assert.equal(rejectedTools.size, liveTools.length);
    });

    test('service_send_invoice end to end: pending, Telegram message, one tap sends it once, a second tap does nothing', async () => {
      const lead = ok<{ id: string }>(await call(clientA, 'service_create_lead', { name: 'Pat Buyer' }), 'lead');
      const invoice = ok<{ id: string }>(
        await call(clientA, 'service_draft_invoice', { lead_id: lead.id, lines: [{ description: 'Audit', unit_amount: 120_000 }] }),
        'draft',
      );
      let sendRequests = 0;
      platform.mcp.deps.bus.connection.subscribe(platform.mcp.deps.bus.subject('svc.leads.invoices.send'), {
        callback: () => {
          sendRequests += 1;
        },
      });
      await platform.mcp.deps.bus.flush();
      const pending = ok<PendingApproval>(await call(clientA, 'service_send_invoice', { invoice_id: invoice.id }), 'send');
      assert.equal(pending.status, 'pending_approval');
      assert.equal(pending.console_url, `${gatewayUrl}/dashboard/approvals/${pending.approval_id}`);
      const message = telegram.callsOf('sendMessage').find((item) => String(item.body.text).includes(pending.approval_id));
      assert.ok(message);
      assert.equal(String(message.body.chat_id), approverChat);

      // Telegram posts the tap to the public hook, through the gateway.
      const tap = (callbackId: string) =>
        fetch(`${gatewayUrl}/api/hooks/telegram`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': telegramWebhookSecret },
          body: JSON.stringify({
            update_id: Number.parseInt(callbackId.replace(/\D/g, ''), 10),
            callback_query: {
              id: callbackId,
              from: { id: 7, is_bot: false, first_name: 'Owner' },
              message: { message_id: 5, chat: { id: Number(approverChat), type: 'group' }, date: 1 },
              chat_instance: '1',
              data: `approve:${pending.approval_id}`,
            },
          }),
        });
      assert.equal((await tap('cb100')).status, 200);
      assert.equal((await tap('cb101')).status, 200);
      await platform.mcp.deps.bus.flush();
      assert.equal(sendRequests, 1);
      const answers = telegram
        .callsOf('answerCallbackQuery')
        .filter((item) => ['cb100', 'cb101'].includes(String(item.body.callback_query_id)));
      assert.deepEqual(
        answers.map((item) => item.body.text),
        ['Approved: done.', 'Already executed by telegram:Owner (id 7); nothing was done this time.'],
      );
      const sent = ok<{ status: string }>(await call(clientA, 'service_get_invoice', { invoice_id: invoice.id }), 'invoice');
      assert.equal(sent.status, 'sent');
      const approval = ok<{ status: string }>(
        await call(clientA, 'service_get_approval', { approval_id: pending.approval_id }),
        'approval',
      );
      assert.equal(approval.status, 'executed');
      const rest = await fetch(`${gatewayUrl}/api/v1/approvals?status=executed`, { headers: bearer(readKey) });
      assert.equal(rest.status, 200);
      const page = (await rest.json()) as { data: Array<{ id: string }> };
      assert.ok(page.data.some((item) => item.id === pending.approval_id));
    });

    // 2026-07-28: the tasks extension (io.modelcontextprotocol/tasks) over the same approval rows.
    if (era.name === '2026-07-28')
      test('an approval tool as a task of the tasks extension through the gateway: tasks/get, tasks/cancel by key and organization', async () => {
        const invoice = await draftInvoiceFor(clientA, 'Tia Task');
        const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
        const rpc = (key: string, method: string, params: Record<string, unknown>) =>
          modernRpcWith(gatewayUrl, bearer(key), method, params, tasks);
        const started = await rpc(orgA.key, 'tools/call', { name: 'service_send_invoice', arguments: { invoice_id: invoice.id } });
        assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
        assert.equal(started.result?.status, 'working');
        const taskId = String(started.result?.taskId);
        assert.ok(String(started.result?.statusMessage).includes(`${gatewayUrl}/dashboard/approvals/${taskId}`));
        assert.equal((await rpc(readKey, 'tasks/get', { taskId })).result?.status, 'working');
        assert.match(String((await rpc(orgB.key, 'tasks/get', { taskId })).error?.message), /not found/i);
        // Withdrawing changes data: a read key may look, not cancel.
        assert.match(String((await rpc(readKey, 'tasks/cancel', { taskId })).error?.message), /forbidden_scope/);
        assert.equal((await rpc(orgA.key, 'tasks/cancel', { taskId })).result?.resultType, 'complete');
        assert.equal((await rpc(orgA.key, 'tasks/get', { taskId })).result?.status, 'cancelled');
        const draft = ok<{ status: string }>(await call(clientA, 'service_get_invoice', { invoice_id: invoice.id }), 'invoice');
        assert.equal(draft.status, 'draft');
      });

    // 2025-11-25 tasks (the task parameter, tasks/get, tasks/list, tasks/cancel).
    if (era.name === '2025-11-25')
      test('approval tools as MCP tasks through the gateway: tasks/get, tasks/list, tasks/cancel by key and organization', async () => {
        const invoice = await draftInvoiceFor(clientA, 'Tess Task');
        const { task } = await legacyOf(clientA).request(
          { method: 'tools/call', params: { name: 'service_send_invoice', arguments: { invoice_id: invoice.id } } },
          CreateTaskResultSchema,
          { task: { ttl: 60_000 } },
        );
        assert.equal(task.status, 'working');
        assert.ok(String(task.statusMessage).includes(`${gatewayUrl}/dashboard/approvals/${task.taskId}`));
        assert.equal((await legacyOf(clientRead).experimental.tasks.getTask(task.taskId)).status, 'working');
        assert.ok((await legacyOf(clientA).experimental.tasks.listTasks()).tasks.some((listed) => listed.taskId === task.taskId));
        await assert.rejects(legacyOf(clientB).experimental.tasks.getTask(task.taskId), /not found/i);
        // Withdrawing changes data: a read key may look, not cancel.
        await assert.rejects(legacyOf(clientRead).experimental.tasks.cancelTask(task.taskId), /forbidden_scope/);
        const cancelled = await legacyOf(clientA).experimental.tasks.cancelTask(task.taskId);
        assert.equal(cancelled.status, 'cancelled');
        const draft = ok<{ status: string }>(await call(clientA, 'service_get_invoice', { invoice_id: invoice.id }), 'invoice');
        assert.equal(draft.status, 'draft');
      });
  });
}

function legacyOf(client: EraClient): Client {
  assert.ok(client.legacy, 'a 2025-11-25 client');
  return client.legacy;
}
