// URL-mode elicitation (MCP 2025-11-25) of an approval, through the gateway, with the SDK's own client and
// headless Chromium: an agent whose client declares `elicitation.url` calls service_send_invoice with a key
// an owner made in the console; the call shows the approval's console page as a URL elicitation, bound to
// that owner, who approves it in the browser; the call then returns the sent invoice. Another owner sees who
// it is bound to and cannot decide it. A decline, a client without the capability, a key nobody owns and a
// forged session id all get today's pending_approval, and Telegram still decides.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '@voice/kit/testing';
import type { ApprovalOutcome, PendingApproval } from '@voice/proto';
import type { Page } from 'playwright-core';
import { type ApprovalsPlatform, linkTelegramInBrowser, startApprovalsInBrowser, telegramTap } from './support/approvals.js';
import type { ConsoleInBrowser } from './support/browser.js';
import { browserSteps, keysPath, uniqueEmail } from './support/journey.js';

const approverChat = '-1009876543210';

/** An agent's MCP client through the gateway, answering URL elicitations with `answer` when it declares them. */
interface ElicitingAgent {
  client: Client;
  elicitations: ElicitRequestURLParams[];
  completed: string[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

describe('approvals as URL elicitations', () => {
  let app: ConsoleInBrowser<'console' | 'webhooks'> & { platform: ApprovalsPlatform };
  const clients: Client[] = [];
  const steps = browserSteps(() => app);
  const { openBrowser, acceptInvitation, createKey, formToken } = steps;
  let orgId: string;
  let cliKey: string;
  let ownerKey: string;
  let olivia: Page;
  let oscar: Page;

  before(async () => {
    app = await startApprovalsInBrowser({ APPROVAL_TASK_POLL_MS: '100' });
    ({ orgId, key: cliKey } = await app.platform.org({ plan: 'pro' }));
    olivia = (await openBrowser()).page;
    oscar = (await openBrowser()).page;
    await acceptInvitation(olivia, await app.invitationLink(orgId, uniqueEmail('olivia'), 'owner'), 'Olivia Owner');
    await acceptInvitation(oscar, await app.invitationLink(orgId, uniqueEmail('oscar'), 'owner'), 'Oscar Owner');
    await linkTelegramInBrowser(olivia, app.platform, approverChat);
    await olivia.goto('/dashboard/settings/api');
    await olivia.waitForURL(keysPath);
    ownerKey = await createKey(olivia, 'Agent key', 'read-write');
  });
  after(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  async function agent(key: string, options: { url: boolean; answer?: 'accept' | 'decline' }): Promise<ElicitingAgent> {
    const client = new Client(
      { name: 'elicitation-test', version: '1.0.0' },
      { capabilities: options.url ? { elicitation: { url: {} } } : {} },
    );
    const elicitations: ElicitRequestURLParams[] = [];
    const completed: string[] = [];
    if (options.url) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        assert.equal(request.params.mode, 'url');
        elicitations.push(request.params as ElicitRequestURLParams);
        return { action: options.answer ?? 'accept' };
      });
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
        completed.push(notification.params.elicitationId);
      });
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
    );
    clients.push(client);
    await client.listTools(); // the SDK validates results against the output schemas it listed
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { client, elicitations, completed, call };
  }

  async function draftInvoice(agentOf: ElicitingAgent): Promise<string> {
    const lead = await agentOf.call('service_create_lead', { name: 'Jane Roe', phone: '+14155550177' });
    const invoice = await agentOf.call('service_draft_invoice', {
      lead_id: (lead.structuredContent as { id: string }).id,
      lines: [{ description: 'Consulting hour', quantity: 2, unit_amount: 4950 }],
      due_date: '2026-12-31',
    });
    assert.ok(!invoice.isError, JSON.stringify(invoice.content));
    return (invoice.structuredContent as { id: string }).id;
  }

  const pendingOf = (result: CallToolResult) => {
    assert.ok(!result.isError, JSON.stringify(result.content));
    const pending = result.structuredContent as PendingApproval;
    assert.equal(pending.status, 'pending_approval');
    return pending;
  };

  test('the owner’s agent gets the approval page as a URL elicitation, the owner approves it there, and the call returns the sent invoice', async () => {
    const agentOf = await agent(ownerKey, { url: true, answer: 'accept' });
    const invoiceId = await draftInvoice(agentOf);
    const call = agentOf.call('service_send_invoice', { invoice_id: invoiceId });

    // The elicitation arrives while the call waits; the chat got the request too.
    const elicitation = await eventually('the URL elicitation', () => agentOf.elicitations[0]);
    const approvalId = elicitation.elicitationId;
    assert.match(approvalId, /^apr_/);
    assert.equal(elicitation.url, `${app.url}/dashboard/approvals/${approvalId}`);
    assert.match(elicitation.message, /Approval needed before the agent's action runs: Send invoice/);
    assert.match(elicitation.message, /also sent to Telegram; deciding there works too/);
    assert.ok(app.platform.telegram.callsOf('sendMessage').some((sent) => String(sent.body.text).includes(approvalId)));

    // Another owner sees whom it is bound to, gets no buttons, and a decision posted anyway is refused.
    await oscar.goto(elicitation.url);
    assert.match((await oscar.locator('#approval-bound').textContent()) ?? '', /sent to the MCP client of Olivia Owner \(usr_/);
    assert.equal(await oscar.getByRole('button', { name: 'Approve and run' }).count(), 0);
    const forced = await oscar.request.post(`${elicitation.url}/decide`, {
      form: { _csrf: await formToken(oscar), decision: 'approve' },
    });
    assert.equal(forced.status(), 403);
    assert.match(await forced.text(), /only they can decide it in the console/);

    // The owner decides in the browser, at the URL the client was given.
    await olivia.goto(elicitation.url);
    await olivia.getByRole('button', { name: 'Approve and run' }).click();
    await olivia.getByText('Approved: done.').waitFor();

    const result = await call;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const outcome = result.structuredContent as ApprovalOutcome;
    assert.equal(outcome.status, 'executed');
    assert.equal(outcome.approval_id, approvalId);
    assert.equal(outcome.resolved_via, 'console');
    assert.match(String(outcome.resolved_by), /^console:Olivia Owner \(usr_/);
    assert.equal((outcome.result as { id: string; status: string }).id, invoiceId);
    assert.equal((outcome.result as { status: string }).status, 'sent');
    assert.deepEqual(agentOf.completed, [approvalId], 'the client was told the elicitation completed');
  });

  test('2026-07-28: the call answers input_required with the approval page as URL input; the owner approves it there, and the follow-up returns the sent invoice', async () => {
    const modern = new ModernClient(
      { name: 'input-required-test', version: '2.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const asked: Array<{ url?: string; message?: string; mode?: string }> = [];
    // The SDK's client fulfils input_required through the same handler a 2025 server's request would reach.
    modern.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as { url?: string; message?: string; mode?: string });
      return { action: 'accept' };
    });
    await modern.connect(
      new ModernTransport(new URL(`${app.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ownerKey}` } } }),
    );
    clients.push(modern as unknown as Client);
    await modern.listTools();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await modern.callTool({ name, arguments: args })) as CallToolResult;
    const invoiceId = await draftInvoice({ client: modern as unknown as Client, elicitations: [], completed: [], call });
    const sending = call('service_send_invoice', { invoice_id: invoiceId });

    const input = await eventually('the URL input request', () => asked[0]);
    assert.equal(input.mode, 'url');
    const approvalId = String(input.url).split('/').pop() ?? '';
    assert.match(approvalId, /^apr_/);
    assert.equal(input.url, `${app.url}/dashboard/approvals/${approvalId}`);
    assert.match(String(input.message), /Approval needed before the agent's action runs: Send invoice/);
    // Bound to the key's owner from the first round: another owner cannot decide it.
    await oscar.goto(String(input.url));
    assert.match((await oscar.locator('#approval-bound').textContent()) ?? '', /sent to the MCP client of Olivia Owner \(usr_/);
    await olivia.goto(String(input.url));
    await olivia.getByRole('button', { name: 'Approve and run' }).click();
    await olivia.getByText('Approved: done.').waitFor();

    const result = await sending;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const outcome = result.structuredContent as ApprovalOutcome;
    assert.equal(outcome.status, 'executed');
    assert.equal(outcome.approval_id, approvalId);
    assert.equal(outcome.resolved_via, 'console');
    assert.equal((outcome.result as { status: string }).status, 'sent');
  });

  test('a declined elicitation returns pending_approval at once, and a Telegram tap still decides it', async () => {
    const agentOf = await agent(ownerKey, { url: true, answer: 'decline' });
    const invoiceId = await draftInvoice(agentOf);
    const pending = pendingOf(await agentOf.call('service_send_invoice', { invoice_id: invoiceId }));
    assert.deepEqual(
      agentOf.elicitations.map((elicitation) => elicitation.elicitationId),
      [pending.approval_id],
    );
    assert.deepEqual(agentOf.completed, []);
    await telegramTap(app.url, approverChat, `approve:${pending.approval_id}`, 'cb-elicitation-decline');
    const seen = await agentOf.call('service_get_approval', { approval_id: pending.approval_id });
    assert.equal((seen.structuredContent as { status: string }).status, 'executed');
    assert.equal((seen.structuredContent as { resolved_via: string }).resolved_via, 'telegram');
  });

  test('a client without URL elicitation, or a key nobody owns (the admin CLI’s), gets today’s pending_approval', async () => {
    const plain = await agent(ownerKey, { url: false });
    const first = pendingOf(await plain.call('service_send_invoice', { invoice_id: await draftInvoice(plain) }));
    const unowned = await agent(cliKey, { url: true });
    const second = pendingOf(await unowned.call('service_send_invoice', { invoice_id: await draftInvoice(unowned) }));
    assert.deepEqual(unowned.elicitations, [], 'a key that belongs to nobody is never elicited');
    // Neither approval is bound: any owner decides them in the console.
    await oscar.goto(`/dashboard/approvals/${first.approval_id}`);
    assert.equal(await oscar.locator('#approval-bound').count(), 0);
    await oscar.goto(`/dashboard/approvals/${second.approval_id}`);
    await oscar.getByRole('button', { name: 'Reject' }).click();
    await oscar.getByText('Rejected: nothing was done.').waitFor();
  });

  test('a forged session id claiming URL elicitation gets a JSON pending_approval, no stream', async () => {
    const plain = await agent(ownerKey, { url: false });
    const invoiceId = await draftInvoice(plain);
    const response = await fetch(`${app.url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ownerKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': 'v1.u.AAAAAAAAAAAAAAAA.forged-signature-of-the-right-shape-000000000',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'service_send_invoice', arguments: { invoice_id: invoiceId } },
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await response.json()) as { result: CallToolResult };
    pendingOf(body.result);
  });
});
