// Test mode in the MCP service: the `testing` toolset (test mode's helpers) exists for test credentials only,
// and an approval asked with a test credential still asks a person, marked test wherever this service tells
// of it. A test credential is the organization's test twin (`testTwinOf`); leads and telephony run for real,
// the webhooks service's operation is answered by a small responder here, and Telegram and Slack are the
// local stand-ins the approvals tests use.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import { newEvent } from '@voice/kit';
import { eventually, gatewayHeaders, sampleEventData } from '@voice/kit/testing';
import {
  type Approval,
  type EventEnvelope,
  type Identity,
  type PendingApproval,
  type RpcDefinition,
  rpcRequestSchema,
  telephonyRpc,
  testTwinOf,
  webhooksRpc,
} from '@voice/proto';
import { errorText, listenOn, type McpHarness, startMcpHarness, structured } from './support/harness.js';

const approverChat = '-1004000000001';
const strangerChat = '-1004000000999';
const slackChannel = 'C0TESTMODE';
const testingTools = ['test_advance_call', 'test_simulate_inbound_call', 'test_simulate_inbound_sms', 'test_trigger_webhook_event'];

/** A request a test helper operation received over NATS: who asked, with what. */
interface Received {
  subject: string;
  identity: Identity;
  input: Record<string, unknown>;
}

interface JsonRpcAnswer {
  result?: { tools?: { name: string }[] } & Partial<CallToolResult>;
  error?: { code: number; message: string };
}

describe('test mode: the testing toolset and test approvals', () => {
  let h: McpHarness;
  let live: Identity;
  let testKey: Identity;
  let rpcId = 0;
  /** Every request to a test helper operation, in the order NATS delivered them (plain subscriptions). */
  const received: Received[] = [];
  const events: EventEnvelope<'approval.requested'>[] = [];

  /** One JSON-RPC message to the MCP endpoint at `path`, as the gateway would forward it. */
  async function mcp(identity: Identity, path: string, body: object, headers: Record<string, string> = {}) {
    rpcId += 1;
    const response = await h.app.inject({
      method: 'POST',
      url: path,
      headers: { ...gatewayHeaders(identity, 'POST', path), accept: 'application/json, text/event-stream', ...headers },
      payload: { jsonrpc: '2.0', id: rpcId, ...body },
    });
    return {
      status: response.statusCode,
      body: response.json() as JsonRpcAnswer & { error?: { code: string; message: string; param?: string } },
    };
  }

  async function listed(identity: Identity, path = '/api/mcp', headers: Record<string, string> = {}): Promise<string[]> {
    const answer = await mcp(identity, path, { method: 'tools/list' }, headers);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body.result?.tools ?? []).map((tool) => tool.name).sort();
  }

  /** Sees every request to the operation, whoever serves it: a plain (non-queue) subscription gets each one. */
  function observe(operation: RpcDefinition): void {
    h.deps.bus.connection.subscribe(h.deps.bus.subject(operation.subject), {
      callback: (error, message) => {
        if (error) return;
        const request = rpcRequestSchema.parse(message.json());
        received.push({ subject: operation.subject, identity: request.identity, input: request.input as Record<string, unknown> });
      },
    });
  }

  /** The requests received since `from`, once there are `count` of them. */
  const receivedSince = (from: number, count: number) =>
    eventually(`${count} test helper request(s)`, () => (received.length >= from + count ? received.slice(from) : undefined));

  before(async () => {
    h = await startMcpHarness();
    live = await h.identity();
    testKey = { ...live, org_id: testTwinOf(live.org_id) };
    observe(telephonyRpc.advanceCall);
    observe(telephonyRpc.simulateInboundCall);
    observe(telephonyRpc.simulateInboundSms);
    observe(webhooksRpc.triggerEvent);
    // The webhooks service does not run here: this responder answers its test helper as the contract says,
    // through kit's responder (which refuses a live identity by itself, as the real one does).
    h.deps.bus.serve(webhooksRpc.triggerEvent, async (input, identity) => ({
      object: 'triggered_event' as const,
      event: newEvent(input.event_type, identity.org_id, sampleEventData('call.completed')),
      deliveries: [],
    }));
    await h.deps.bus.flush();
    await h.deps.bus.consume({ durable: 'test-mode-approval-events', types: ['approval.requested'] }, async (event) => {
      events.push(event as EventEnvelope<'approval.requested'>);
    });
  });
  after(async () => {
    await h.close();
  });

  test("a live credential's tools/list never holds the testing tools: the default selection lists the 46 others", async () => {
    const names = await listed(live);
    assert.equal(names.length, 46);
    assert.deepEqual(
      names.filter((name) => testingTools.includes(name)),
      [],
    );
    assert.ok(names.includes('service_list_calls'));
  });

  test('a live credential naming the testing toolset (URL or header) gets a 400 saying it needs a test credential', async () => {
    for (const [path, headers, param] of [
      ['/api/mcp/x/testing', {}, 'toolsets'],
      ['/api/mcp/x/calls,testing', {}, 'toolsets'],
      ['/api/mcp', { 'x-mcp-toolsets': 'testing' }, 'x-mcp-toolsets'],
    ] as const) {
      const answer = await mcp(live, path, { method: 'tools/list' }, headers);
      assert.equal(answer.status, 400, path);
      assert.equal(answer.body.error?.code, 'invalid_request', path);
      assert.match(answer.body.error?.message ?? '', /^The testing toolset is for test credentials only .*this credential is live\./, path);
      assert.equal((answer.body.error as { param?: string }).param, param, path);
    }
  });

  test("a test credential's default selection holds the testing tools besides the others; /api/mcp/x/testing holds them alone", async () => {
    const names = await listed(testKey);
    assert.equal(names.length, 50);
    assert.deepEqual(
      names.filter((name) => name.startsWith('test_')),
      testingTools,
    );
    assert.deepEqual(await listed(testKey, '/api/mcp/x/testing'), testingTools);
    assert.deepEqual(await listed(testKey, '/api/mcp', { 'x-mcp-toolsets': 'testing' }), testingTools);
    // Test helpers change (test) data: read-only mode does not offer them.
    assert.deepEqual(await listed(testKey, '/api/mcp/x/testing/readonly'), []);
  });

  test('a test credential’s calls reach the test helper operations over NATS, as the test twin, with the mapped input', async () => {
    const from = received.length;
    const triggered = structured<{ object: string; event: EventEnvelope }>(
      await h.tool(testKey, 'test_trigger_webhook_event', { event_type: 'call.completed' }),
    );
    assert.equal(triggered.object, 'triggered_event');
    assert.equal(triggered.event.type, 'call.completed');
    assert.equal(triggered.event.org_id, testKey.org_id);
    assert.equal(triggered.event.livemode, false);

    // Telephony runs for real; whatever it answers (its handlers are its own), the request reached it.
    const results = [
      await h.tool(testKey, 'test_advance_call', { call_id: 'call_testmode0000000001', outcome: 'qualified_lead' }),
      await h.tool(testKey, 'test_simulate_inbound_call', { from: '+15005550101', outcome: 'booked' }),
      await h.tool(testKey, 'test_simulate_inbound_sms', { from: '+15005550107', body: 'STOP' }),
    ];
    for (const result of results) {
      if (result.isError) assert.match(errorText(result), /^[a-z_]+: /, 'a tool error names its code');
      else assert.ok(result.structuredContent, 'a result is structured');
    }
    const requests = await receivedSince(from, 4);
    assert.deepEqual(
      requests.map(({ subject, input }) => [subject, input]),
      [
        [webhooksRpc.triggerEvent.subject, { event_type: 'call.completed' }],
        [telephonyRpc.advanceCall.subject, { id: 'call_testmode0000000001', outcome: 'qualified_lead' }],
        [telephonyRpc.simulateInboundCall.subject, { from: '+15005550101', outcome: 'booked' }],
        [telephonyRpc.simulateInboundSms.subject, { from: '+15005550107', body: 'STOP' }],
      ],
    );
    for (const request of requests) {
      assert.equal(request.identity.org_id, testKey.org_id, 'as the test twin');
      assert.equal(request.identity.key_id, testKey.key_id);
    }
  });

  test('wrong arguments to a testing tool are refused before any request is sent', async () => {
    const from = received.length;
    const contradicting = await h.tool(testKey, 'test_advance_call', {
      call_id: 'call_testmode0000000001',
      status: 'busy',
      outcome: 'booked',
    });
    assert.match(errorText(contradicting), /^invalid_request: .*outcome.*An outcome completes the call/);
    assert.match(errorText(await h.tool(testKey, 'test_advance_call', { id: 'call_testmode0000000001' })), /^invalid_request: /);
    assert.match(errorText(await h.tool(testKey, 'test_simulate_inbound_sms', { from: '555', body: 'hi' })), /^invalid_request: .*from/);
    assert.match(errorText(await h.tool(testKey, 'test_trigger_webhook_event', { event_type: '*' })), /^invalid_request: .*event_type/);
    // A read key may not change test data either.
    assert.match(
      errorText(await h.tool({ ...testKey, scope: 'read' }, 'test_simulate_inbound_call', { from: '+15005550102' })),
      /^forbidden_scope: /,
    );
    // NATS delivers in order: the next request seen is this valid one, so none of the refused ones was sent.
    await h.tool(testKey, 'test_simulate_inbound_call', { from: '+15005550102' });
    const [next] = await receivedSince(from, 1);
    assert.deepEqual([next?.subject, next?.input], [telephonyRpc.simulateInboundCall.subject, { from: '+15005550102' }]);
  });

  test('a live credential calling a testing tool is refused as an unknown tool, and no request is sent', async () => {
    const from = received.length;
    for (const name of testingTools) {
      const answer = await mcp(live, '/api/mcp', { method: 'tools/call', params: { name, arguments: { from: '+15005550101' } } });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.result, undefined, name);
      assert.equal(answer.body.error?.code, -32602, name);
      assert.equal(answer.body.error?.message, `MCP error -32602: Unknown tool: ${name}`, name);
    }
    // As a task too.
    const task = await mcp(live, '/api/mcp', {
      method: 'tools/call',
      params: { name: 'test_simulate_inbound_sms', arguments: { from: '+15005550101', body: 'hi' }, task: { ttl: 60_000 } },
    });
    assert.match(task.body.error?.message ?? '', /Unknown tool: test_simulate_inbound_sms/);
    // In order on NATS: the next request seen is the test credential's, so the live calls sent none.
    await h.tool(testKey, 'test_simulate_inbound_sms', { from: '+15005550103', body: 'after the live calls' });
    const [next] = await receivedSince(from, 1);
    assert.deepEqual([next?.identity.org_id, next?.input.body], [testKey.org_id, 'after the live calls']);
  });

  test('an approval asked with a test credential is marked test: record, Telegram, Slack, pending_approval, event; a tap in the live organization’s chat decides it', async () => {
    // The twin has no people of its own: its approvals go to the chats its live organization linked.
    await h.linkTelegram(live, approverChat);
    await h.linkSlack(live, slackChannel);
    const lead = structured<{ id: string }>(await h.tool(testKey, 'service_create_lead', { name: 'Test Mode Lead' }));
    const pending = structured<PendingApproval>(await h.tool(testKey, 'service_delete_lead', { lead_id: lead.id }));
    assert.equal(pending.status, 'pending_approval');
    assert.deepEqual(pending.sent_to.sort(), ['slack', 'telegram']);
    assert.match(pending.summary, /^\[TEST MODE\] Nothing was done yet\. Once a person approves /);

    const record = structured<Approval>(await h.tool(testKey, 'service_get_approval', { approval_id: pending.approval_id }));
    assert.equal(record.livemode, false);
    const rest = await h.request(testKey, 'GET', `/api/v1/approvals/${pending.approval_id}`);
    assert.equal(rest.json().livemode, false);
    // The live organization's own credentials do not see the twin's approvals (another organization id).
    assert.equal((await h.request(live, 'GET', `/api/v1/approvals/${pending.approval_id}`)).statusCode, 404);

    const telegram = h.telegram.callsOf('sendMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.equal(String(telegram?.body.chat_id), approverChat);
    assert.match(String(telegram?.body.text), /^\[TEST MODE\] Approval needed: Delete lead .*Test Mode Lead/);
    assert.match(String(telegram?.body.text), /\nTest mode: asked with a test credential; the action changes test data only\.\n/);
    const slack = h.slack.callsOf('/api/chat.postMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.equal(slack?.body.channel, slackChannel);
    assert.match(String(slack?.body.text), /^\[TEST MODE\] Approval needed: /);
    assert.match(JSON.stringify(slack?.body.blocks), /"text":"\[TEST MODE\] Approval needed: /);

    const requested = await eventually('approval.requested', () => events.find((event) => event.data.approval_id === pending.approval_id));
    assert.equal(requested.livemode, false, 'the envelope says test');
    assert.equal(requested.org_id, testKey.org_id);
    assert.equal('livemode' in requested.data, false, 'the data leaves it to the envelope');

    // Another organization's chat cannot decide it; the live organization's chat can.
    const stranger = await h.identity();
    await h.linkTelegram(stranger, strangerChat);
    await h.telegramTap(strangerChat, `reject:${pending.approval_id}`, { callbackId: 'cb-testmode-stranger' });
    const refused = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-testmode-stranger');
    assert.match(String(refused?.body.text), /not linked/);
    await h.telegramTap(approverChat, `reject:${pending.approval_id}`, { callbackId: 'cb-testmode-reject' });
    const rejected = structured<Approval>(await h.tool(testKey, 'service_get_approval', { approval_id: pending.approval_id }));
    assert.deepEqual([rejected.status, rejected.livemode], ['rejected', false]);
    const edited = h.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.match(String(edited?.body.text), /^\[TEST MODE\] Approval request: Delete lead /);
    assert.match(String(edited?.body.text), /❌ Rejected by telegram:@alice/);
    assert.equal(structured<{ id: string }>(await h.tool(testKey, 'service_get_lead', { lead_id: lead.id })).id, lead.id, 'not deleted');
  });

  test('a live credential’s approval is not marked: livemode true, the messages as before', async () => {
    const lead = structured<{ id: string }>(await h.tool(live, 'service_create_lead', { name: 'Live Lead' }));
    const pending = structured<PendingApproval>(await h.tool(live, 'service_delete_lead', { lead_id: lead.id }));
    assert.match(pending.summary, /^Nothing was done yet\. /);
    assert.equal(structured<Approval>(await h.tool(live, 'service_get_approval', { approval_id: pending.approval_id })).livemode, true);
    const telegram = h.telegram.callsOf('sendMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.match(String(telegram?.body.text), /^Approval needed: Delete lead /);
    assert.doesNotMatch(String(telegram?.body.text), /TEST MODE|Test mode/);
    const slack = h.slack.callsOf('/api/chat.postMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.match(String(slack?.body.text), /^Approval needed: /);
  });

  test('the URL elicitation of a test approval says TEST MODE', async () => {
    const owner = { ...testKey, owner_user_id: 'usr_testmodeowner00000001' };
    const lead = structured<{ id: string }>(await h.tool(owner, 'service_create_lead', { name: 'Elicited Test Lead' }));
    const url = await listenOn(h.app);
    const signedFetch: typeof fetch = (input, init = {}) => {
      const target = new URL(input instanceof Request ? input.url : String(input));
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(gatewayHeaders(owner, init.method ?? 'GET', target.pathname))) headers.set(name, value);
      return fetch(target, { ...init, headers });
    };
    const client = new Client({ name: 'test-mode', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const shown: ElicitRequestURLParams[] = [];
    // The person closes the page: the call returns pending_approval at once.
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      shown.push(request.params as ElicitRequestURLParams);
      return { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { fetch: signedFetch }));
    try {
      const result = (await client.callTool({ name: 'service_delete_lead', arguments: { lead_id: lead.id } })) as CallToolResult;
      const pending = result.structuredContent as PendingApproval;
      assert.equal(pending.status, 'pending_approval');
      assert.match(pending.summary, /^\[TEST MODE\] /);
      assert.equal(shown.length, 1);
      assert.equal(shown[0]?.elicitationId, pending.approval_id);
      assert.match(shown[0]?.message ?? '', /^\[TEST MODE\] Approval needed before the agent's action runs: Delete lead /);
    } finally {
      await client.close();
    }
  });
});
