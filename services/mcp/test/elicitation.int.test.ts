// URL elicitation of approvals across stateless replicas: the SDK's own client calls service_send_invoice on
// replica 1, and its answer to the elicitation (a POST of its own) is sent to replica 2, as a load balancer
// may do; replica 2 relays it over NATS to the call waiting on replica 1. The browser side (the console
// page, the binding to the key's owner) is services/console/test/browser-elicitation.int.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { eventually, gatewayHeaders } from '@voice/kit/testing';
import type { ApprovalOutcome, Identity, PendingApproval } from '@voice/proto';
import { draftInvoiceFor, type McpHarness, startMcpHarness, twoReplicas } from './support/harness.js';

const approverChat = '-1003000000777';
const ownerId = 'usr_elicitationowner000001';

interface Agent {
  client: Client;
  elicitations: Array<ElicitRequestURLParams & { requestId: string | number }>;
  completed: string[];
  /** How many answers to elicitations reached replica 2. */
  answersOnReplica2: number;
}

describe('URL elicitation across replicas', () => {
  let h: McpHarness;
  let replicas: Awaited<ReturnType<typeof twoReplicas>> | undefined;
  let url1: string;
  let url2: string;
  let owned: Identity;
  const clients: Client[] = [];

  before(async () => {
    // A long wait: a call that returns early does so because of an answer or a decision, never the clock.
    h = await startMcpHarness({ APPROVAL_TASK_POLL_MS: '100', APPROVAL_ELICITATION_WAIT_MS: '600000' });
    owned = { ...(await h.identity()), owner_user_id: ownerId };
    await h.linkTelegram(owned, approverChat);
    replicas = await twoReplicas(h);
    ({ url1, url2 } = replicas);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await replicas?.close();
    await h.close();
  });

  /**
   * The SDK client on replica 1 as `identity`, declaring URL elicitation; its answers to the server's
   * requests go to replica 2. `answer` runs in the elicitation handler and says what the person chose.
   */
  async function agent(identity: Identity, answer: (params: ElicitRequestURLParams, requestId: string | number) => Promise<string>) {
    const state: Agent = {
      client: new Client({ name: 'elicitation', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } }),
      elicitations: [],
      completed: [],
      answersOnReplica2: 0,
    };
    const routedFetch: typeof fetch = (input, init = {}) => {
      let url = new URL(input instanceof Request ? input.url : String(input));
      const body = typeof init.body === 'string' ? (JSON.parse(init.body) as { method?: string; result?: unknown }) : undefined;
      if (init.method === 'POST' && body && body.method === undefined && body.result !== undefined) {
        url = new URL(url.pathname, url2);
        state.answersOnReplica2 += 1;
      }
      const method = init.method ?? 'GET';
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(gatewayHeaders(identity, method, url.pathname))) headers.set(name, value);
      return fetch(url, { ...init, headers });
    };
    state.client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as ElicitRequestURLParams;
      state.elicitations.push({ ...params, requestId: extra.requestId });
      return { action: (await answer(params, extra.requestId)) as 'accept' };
    });
    state.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
      state.completed.push(notification.params.elicitationId);
    });
    await state.client.connect(new StreamableHTTPClientTransport(new URL(`${url1}/api/mcp`), { fetch: routedFetch }));
    clients.push(state.client);
    await state.client.listTools();
    return state;
  }

  const sendInvoice = async (client: Client, invoiceId: string) =>
    (await client.callTool({ name: 'service_send_invoice', arguments: { invoice_id: invoiceId } })) as CallToolResult;

  test('accepted on replica 2, decided by a tap on replica 1: the call returns the sent invoice after elicitation/complete', async () => {
    const invoice = await draftInvoiceFor(h, owned);
    const person = await agent(owned, async () => 'accept');
    const call = sendInvoice(person.client, invoice.id);
    // The person opened the page (the client said accept, to replica 2); then someone taps Approve in the chat.
    await eventually('the answer sent to replica 2', () => person.answersOnReplica2 === 1);
    const tap = await h.telegramTap(approverChat, `approve:${person.elicitations[0]?.elicitationId}`, { callbackId: 'cb-elicit-accept' });
    assert.equal(tap.statusCode, 200);
    const result = await call;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const outcome = result.structuredContent as ApprovalOutcome;
    assert.equal(outcome.status, 'executed');
    assert.equal((outcome.result as { status: string }).status, 'sent');
    assert.equal(person.elicitations.length, 1);
    const [elicitation] = person.elicitations;
    assert.equal(elicitation?.elicitationId, outcome.approval_id);
    assert.equal(elicitation?.url, `${h.deps.env.PUBLIC_BASE_URL}/dashboard/approvals/${outcome.approval_id}`);
    assert.deepEqual(person.completed, [outcome.approval_id]);
    assert.equal(person.answersOnReplica2, 1);
    const row = await h.deps.prisma.approval.findUniqueOrThrow({ where: { id: outcome.approval_id } });
    assert.equal(row.boundUserId, ownerId, 'bound to the person the key belongs to');
  });

  test('declined on replica 2: the call on replica 1 returns pending_approval, and the approval stays open', async () => {
    const invoice = await draftInvoiceFor(h, owned);
    const person = await agent(owned, async () => 'decline');
    const result = await sendInvoice(person.client, invoice.id);
    const pending = result.structuredContent as PendingApproval;
    assert.equal(pending.status, 'pending_approval');
    assert.equal(person.answersOnReplica2, 1);
    assert.deepEqual(person.completed, []);
    const row = await h.deps.prisma.approval.findUniqueOrThrow({ where: { id: pending.approval_id } });
    assert.equal(row.status, 'pending');
  });

  test("another key's answer to the elicitation is ignored: only the asking key's client ends the wait", async () => {
    const intruder = { ...(await h.identity()), org_id: owned.org_id };
    const invoice = await draftInvoiceFor(h, owned);
    const heard: unknown[] = [];
    h.deps.bus.listen('mcp.elicitation.answers', (data) => heard.push(data));
    const person = await agent(owned, async (params, requestId) => {
      // A decline of this very elicitation, posted with another key of the organization.
      const forged = await fetch(`${url2}/api/mcp`, {
        method: 'POST',
        headers: { ...gatewayHeaders(intruder, 'POST', '/api/mcp'), 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: requestId, result: { action: 'decline' } }),
      });
      assert.equal(forged.status, 202);
      // Relayed (replica 1 heard it, in order on its one connection) and ignored; then a person approves.
      await eventually('the forged answer relayed to replica 1', () => heard.length > 0);
      await h.telegramTap(approverChat, `approve:${params.elicitationId}`, { callbackId: 'cb-elicit-intruder' });
      return 'accept';
    });
    const result = await sendInvoice(person.client, invoice.id);
    assert.equal((result.structuredContent as ApprovalOutcome).status, 'executed');
  });
});
