// Approvals for 2026-07-28 clients across stateless replicas: the v2 SDK's client calls service_send_invoice
// on replica 1 and gets input_required (the approval's console page as URL input); its follow-up request is
// sent to replica 2, as a load balancer may do, which waits for the decision in the database. The browser
// side is services/console/test/browser-elicitation.int.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually, gatewayHeaders } from '@voice/kit/testing';
import type { ApprovalOutcome, Identity, PendingApproval } from '@voice/proto';
import { draftInvoiceFor, type McpHarness, modernRpc, startMcpHarness, twoReplicas } from './support/harness.js';

const approverChat = '-1003000000888';
const ownerId = 'usr_inputrequiredowner0001';

interface ModernAgent {
  client: Client;
  urls: string[];
  /** Which replica each request reached: 1 or 2. */
  replicas: number[];
}

describe('approvals as input_required across replicas', () => {
  let h: McpHarness;
  let replicas: Awaited<ReturnType<typeof twoReplicas>> | undefined;
  let url1: string;
  let url2: string;
  let owned: Identity;
  const clients: Client[] = [];

  before(async () => {
    // A long wait: a follow-up that returns early does so because of an answer or a decision, never the clock.
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

  /** The v2 client as `identity`, declaring URL input; a request carrying `requestState` goes to replica 2. */
  async function agent(identity: Identity, answer: 'accept' | 'decline', url = true): Promise<ModernAgent> {
    const urls: string[] = [];
    const replicas: number[] = [];
    const routed: typeof fetch = (input, init = {}) => {
      const target = new URL(input instanceof Request ? input.url : String(input));
      const followUp = typeof init.body === 'string' && init.body.includes('"requestState"');
      const base = new URL(followUp ? url2 : url1);
      target.host = base.host;
      replicas.push(followUp ? 2 : 1);
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(gatewayHeaders(identity, init.method ?? 'GET', target.pathname))) headers.set(name, value);
      return fetch(target, { ...init, headers });
    };
    const client = new Client(
      { name: 'input-required-test', version: '2.0.0' },
      { capabilities: url ? { elicitation: { url: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    if (url) {
      client.setRequestHandler('elicitation/create', async (request) => {
        urls.push(String((request.params as { url?: string }).url));
        return { action: answer };
      });
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url1}/api/mcp`), { fetch: routed }));
    clients.push(client);
    return { client, urls, replicas };
  }

  const send = async (agentOf: ModernAgent, invoiceId: string) =>
    agentOf.client.callTool({ name: 'service_send_invoice', arguments: { invoice_id: invoiceId } });

  test('the follow-up on replica 2 returns the executed outcome once a person decides (a Telegram tap)', async () => {
    const agentOf = await agent(owned, 'accept');
    const invoice = await draftInvoiceFor(h, owned);
    const call = send(agentOf, invoice.id);
    const url = await eventually('the URL input', () => agentOf.urls[0]);
    const approvalId = url.split('/').pop() ?? '';
    assert.match(approvalId, /^apr_/);
    // The first round bound it to the key's owner before anyone could see it.
    const row = await h.deps.prisma.approval.findFirstOrThrow({ where: { id: approvalId } });
    assert.equal(row.boundUserId, ownerId);
    await eventually('the follow-up reached replica 2', () => (agentOf.replicas.includes(2) ? true : undefined));
    await h.telegramTap(approverChat, `approve:${approvalId}`);
    const result = await call;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const outcome = result.structuredContent as ApprovalOutcome;
    assert.equal(outcome.status, 'executed');
    assert.equal(outcome.approval_id, approvalId);
    assert.equal((outcome.result as { status: string }).status, 'sent');
  });

  test('a decline ends the follow-up with pending_approval at once; a client without URL input gets it in one round', async () => {
    const declining = await agent(owned, 'decline');
    const declined = await send(declining, (await draftInvoiceFor(h, owned)).id);
    assert.equal((declined.structuredContent as PendingApproval).status, 'pending_approval');
    assert.equal(declining.urls.length, 1);
    const plain = await agent(owned, 'accept', false);
    const pending = await send(plain, (await draftInvoiceFor(h, owned)).id);
    assert.equal((pending.structuredContent as PendingApproval).status, 'pending_approval');
    assert.deepEqual(
      plain.replicas.filter((replica) => replica === 2),
      [],
      'no follow-up',
    );
  });

  test('a requestState from another credential, or a forged one, is refused', async () => {
    const invoice = await draftInvoiceFor(h, owned);
    const post = (identity: Identity, params: Record<string, unknown>) =>
      modernRpc(url2, identity, 'tools/call', params, { elicitation: { url: {} } }) as Promise<{
        result?: { resultType?: string; requestState?: string };
        error?: { code: number; message: string };
      }>;
    const first = await post(owned, { name: 'service_send_invoice', arguments: { invoice_id: invoice.id } });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const state = String(first.result?.requestState);
    const other = { ...(await h.identity()), owner_user_id: 'usr_someoneelse0000000001' };
    const stolen = await post(other, { name: 'service_send_invoice', arguments: { invoice_id: invoice.id }, requestState: state });
    assert.ok(stolen.error, JSON.stringify(stolen));
    const forged = await post(owned, {
      name: 'service_send_invoice',
      arguments: { invoice_id: invoice.id },
      requestState: `${state.slice(0, -4)}AAAA`,
    });
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));
  });
});
