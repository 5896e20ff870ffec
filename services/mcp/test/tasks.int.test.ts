// Approvals that report back: the four approval tools as MCP tasks (spec 2025-11-25), with the SDK's own
// client on two replicas of the mcp service (one database), fake Telegram, and the real leads service.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { HttpApp } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import type { ApprovalOutcome, EventEnvelope, Identity, Invoice, PendingApproval } from '@voice/proto';
import { buildApp } from '../src/app.js';
import { connectDeps, type McpDeps } from '../src/deps.js';
import { decideInConsole, sweepExpired } from '../src/domain/approvals.js';
import { draftInvoiceFor, listenOn, type McpHarness, sdkClient, startMcpHarness, structured } from './support/harness.js';

const approverChat = '-1003000000001';
const publicBaseUrl = 'https://voice.example.com';

describe('approval tools as MCP tasks', () => {
  let h: McpHarness;
  let org: Identity;
  let other: Identity;
  /** Replica 1 is the harness's app; replica 2 is a second process on the same database and NATS. */
  let replica2: { deps: McpDeps; app: HttpApp };
  let url1: string;
  let client1: Client;
  let client2: Client;
  let otherClient: Client;
  let sendInvoiceRequests = 0;
  const events: EventEnvelope<'approval.resolved'>[] = [];

  const draftInvoice = () => draftInvoiceFor(h, org);

  /** service_send_invoice as a task: the CreateTaskResult, answered at once. */
  async function sendAsTask(client: Client, invoiceId: string) {
    return client.request(
      { method: 'tools/call', params: { name: 'service_send_invoice', arguments: { invoice_id: invoiceId } } },
      CreateTaskResultSchema,
      { task: { ttl: 60_000 } },
    );
  }

  async function invoiceStatus(id: string): Promise<string> {
    return structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: id })).status;
  }

  function textOf(result: { content?: unknown }): string {
    return ((result.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
  }

  function telegramEdit(approvalId: string): string | undefined {
    const edits = h.telegram.callsOf('editMessageText').filter((call) => String(call.body.text).includes(approvalId));
    return edits.length > 0 ? String(edits[edits.length - 1]?.body.text) : undefined;
  }

  async function rejects(promise: Promise<unknown>, code: number, message: RegExp): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof McpError, `an McpError, got ${String(error)}`);
      assert.equal(error.code, code);
      assert.match(error.message, message);
      return true;
    });
  }

  before(async () => {
    h = await startMcpHarness({ PUBLIC_BASE_URL: publicBaseUrl, APPROVAL_TASK_POLL_MS: '100' });
    org = await h.identity();
    other = await h.identity();
    const linked = await h.request(org, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: approverChat });
    assert.equal(linked.statusCode, 200);
    h.deps.bus.connection.subscribe(h.deps.bus.subject('svc.leads.invoices.send'), {
      callback: () => {
        sendInvoiceRequests += 1;
      },
    });
    await h.deps.bus.consume({ durable: 'task-events-test', types: ['approval.resolved'] }, async (event) => {
      events.push(event);
    });
    const deps = await connectDeps(h.deps.env, undefined, { now: h.deps.now });
    replica2 = { deps, app: await buildApp(deps) };
    const url2 = await listenOn(replica2.app);
    url1 = await listenOn(h.app);
    [client1, client2, otherClient] = await Promise.all([sdkClient(url1, org), sdkClient(url2, org), sdkClient(url2, other)]);
  });
  after(async () => {
    await Promise.allSettled([client1?.close(), client2?.close(), otherClient?.close()]);
    await replica2?.app.close();
    await replica2?.deps.close();
    await h.close();
  });

  test('the server declares tasks; the four approval tools, and only they, take them (taskSupport optional)', async () => {
    assert.deepEqual(client1.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client1.listTools();
    const withTasks = tools.filter((tool) => tool.execution?.taskSupport === 'optional').map((tool) => tool.name);
    assert.deepEqual(withTasks.sort(), ['service_delete_lead', 'service_deliver_project', 'service_remove_dnc', 'service_send_invoice']);
    assert.equal(tools.filter((tool) => tool.execution !== undefined).length, 4);
    // A tool without task support called as a task is -32601, as the spec asks; nothing runs.
    await rejects(
      client1.request({ method: 'tools/call', params: { name: 'service_list_leads', arguments: {} } }, CreateTaskResultSchema, {
        task: {},
      }),
      ErrorCode.MethodNotFound,
      /does not run as a task/,
    );
  });

  test('tap → tasks/result returns the sent invoice (validated by the SDK against the output schema); replica 2 answers', async () => {
    const invoice = await draftInvoice();
    await client1.listTools(); // the SDK validates a tool's results against the output schema it listed
    const before = sendInvoiceRequests;
    const messages: Array<{ type: string }> = [];
    let approvalId = '';
    for await (const message of client1.experimental.tasks.callToolStream({
      name: 'service_send_invoice',
      arguments: { invoice_id: invoice.id },
    })) {
      messages.push(message);
      if (message.type === 'taskCreated') {
        const { task } = message;
        approvalId = task.taskId;
        assert.match(approvalId, /^apr_/);
        assert.equal(task.status, 'working');
        assert.equal(task.ttl, null);
        assert.equal(task.pollInterval, 100);
        assert.match(String(task.statusMessage), /^Waiting for a person to approve in Telegram \(or in the console: /);
        assert.ok(String(task.statusMessage).includes(`${publicBaseUrl}/dashboard/approvals/${approvalId}`));
        // Nothing was done; the request went to Telegram with the buttons.
        assert.equal(await invoiceStatus(invoice.id), 'draft');
        assert.ok(h.telegram.callsOf('sendMessage').some((call) => String(call.body.text).includes(approvalId)));
        // The other replica knows the task: the row is the task.
        const seen = await client2.experimental.tasks.getTask(approvalId);
        assert.equal(seen.status, 'working');
        assert.equal(seen.createdAt, task.createdAt);
        // tasks/result on replica 2 waits for the decision; the tap then lands on replica 1.
        const waiting = client2.experimental.tasks.getTaskResult(approvalId, CallToolResultSchema);
        const tap = await h.telegramTap(approverChat, `approve:${approvalId}`, { callbackId: 'cb-task-approve' });
        assert.equal(tap.statusCode, 200);
        const result = await waiting;
        const outcome = result.structuredContent as ApprovalOutcome;
        assert.equal(outcome.status, 'executed');
        assert.equal(outcome.approval_id, approvalId);
        assert.equal(outcome.resolved_by, 'telegram:@alice (id 4242)');
        assert.equal(outcome.result.id, invoice.id);
        assert.equal(outcome.result.status, 'sent');
        assert.deepEqual(result._meta?.['io.modelcontextprotocol/related-task'], { taskId: approvalId });
      }
    }
    const final = messages[messages.length - 1];
    assert.equal(final?.type, 'result', JSON.stringify(final));
    const result = (final as unknown as { result: { structuredContent: ApprovalOutcome; content: unknown } }).result;
    assert.equal(result.structuredContent.result.status, 'sent');
    assert.equal(textOf(result), JSON.stringify(result.structuredContent));
    assert.ok(messages.some((message) => message.type === 'taskStatus'));
    assert.equal(await invoiceStatus(invoice.id), 'sent');
    assert.equal(sendInvoiceRequests, before + 1);
    const done = await client2.experimental.tasks.getTask(approvalId);
    assert.equal(done.status, 'completed');
    assert.equal(done.pollInterval, undefined);
    assert.match(String(done.statusMessage), /^Approved by telegram:@alice \(id 4242\) and done\.$/);
    // Listed for its organization, on any replica.
    const listed = await client2.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((task) => task.taskId === approvalId && task.status === 'completed'));
  });

  test('Reject: the task fails, tasks/result says rejected, nothing was sent', async () => {
    const invoice = await draftInvoice();
    const before = sendInvoiceRequests;
    const { task } = await sendAsTask(client1, invoice.id);
    await h.telegramTap(approverChat, `reject:${task.taskId}`, { callbackId: 'cb-task-reject' });
    const failed = await client2.experimental.tasks.getTask(task.taskId);
    assert.equal(failed.status, 'failed');
    assert.match(String(failed.statusMessage), /^Rejected by telegram:@alice \(id 4242\); nothing was done\.$/);
    const result = await client1.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^rejected: Rejected by telegram:@alice \(id 4242\) \(approval apr_\w+\); nothing was done/);
    assert.equal(await invoiceStatus(invoice.id), 'draft');
    assert.equal(sendInvoiceRequests, before);
    await rejects(client1.experimental.tasks.cancelTask(task.taskId), ErrorCode.InvalidParams, /terminal status: failed/);
  });

  test('expiry: the task fails once the approval expired; tasks/result says expired', async (t) => {
    const invoice = await draftInvoice();
    const { task } = await sendAsTask(client1, invoice.id);
    h.advanceClock(3600_000);
    t.after(() => h.advanceClock(-25 * 3600_000));
    // Polls grow sparser as the approval waits (each is a metered request): an hour in, every 5 minutes.
    const waiting = await client2.experimental.tasks.getTask(task.taskId);
    assert.deepEqual([waiting.status, waiting.pollInterval], ['working', 300_000]);
    h.advanceClock(24 * 3600_000);
    // Expired from its expiry on, before the sweep marked it.
    const expired = await client2.experimental.tasks.getTask(task.taskId);
    assert.equal(expired.status, 'failed');
    assert.match(String(expired.statusMessage), /^Nobody approved before .*; nothing was done\.$/);
    assert.ok(Date.parse(expired.lastUpdatedAt) > Date.parse(task.createdAt) + 23 * 3600_000);
    assert.ok((await sweepExpired(h.deps)) >= 1);
    const result = await client2.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^expired: Nobody approved before /);
    assert.match(String(telegramEdit(task.taskId)), /Expired before anyone approved it/);
    assert.equal(await invoiceStatus(invoice.id), 'draft');
  });

  test('tasks/cancel withdraws the approval: message edited, nothing done, a later tap changes nothing', async () => {
    const invoice = await draftInvoice();
    const before = sendInvoiceRequests;
    const { task } = await sendAsTask(client1, invoice.id);
    // Another organization cannot see or cancel it.
    await rejects(otherClient.experimental.tasks.getTask(task.taskId), ErrorCode.InvalidParams, /not found/i);
    await rejects(otherClient.experimental.tasks.cancelTask(task.taskId), ErrorCode.InvalidParams, /not found/i);
    await rejects(otherClient.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema), ErrorCode.InvalidParams, /not found/i);
    assert.ok(!(await otherClient.experimental.tasks.listTasks()).tasks.some((listed) => listed.taskId === task.taskId));

    const cancelled = await client2.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.match(String(cancelled.statusMessage), new RegExp(`^Withdrawn by mcp:${org.key_id} before anyone decided`));
    assert.match(
      String(telegramEdit(task.taskId)),
      new RegExp(`Withdrawn by the agent that asked \\(mcp:${org.key_id}\\).*Nothing was done`),
    );
    const approval = structured<{ status: string; resolved_via: string }>(
      await h.tool(org, 'service_get_approval', { approval_id: task.taskId }),
    );
    assert.deepEqual([approval.status, approval.resolved_via], ['withdrawn', 'mcp']);

    await h.telegramTap(approverChat, `approve:${task.taskId}`, { callbackId: 'cb-after-withdrawal' });
    const answer = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-after-withdrawal');
    assert.match(String(answer?.body.text), /^Already withdrawn by mcp:.*; nothing was done this time\.$/);
    assert.equal(await invoiceStatus(invoice.id), 'draft');
    assert.equal(sendInvoiceRequests, before);
    assert.equal((await client1.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
    const result = await client1.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    assert.match(textOf(result), /^withdrawn: Withdrawn by mcp:/);
    await rejects(client1.experimental.tasks.cancelTask(task.taskId), ErrorCode.InvalidParams, /terminal status: cancelled/);
  });

  test('withdrawing in Slack: remove_dnc as a task, tasks/cancel updates the Slack message and publishes approval.resolved', async () => {
    const team = await h.identity();
    assert.equal((await h.request(team, 'PUT', '/api/v1/approvals/channels/slack', { channel_id: 'C0TASKS01' })).statusCode, 200);
    structured(await h.tool(team, 'service_add_dnc', { phone: '+14155550188', channel: 'all', reason: 'asked to stop' }));
    const teamClient = await sdkClient(url1, team);
    try {
      const { task } = await teamClient.request(
        { method: 'tools/call', params: { name: 'service_remove_dnc', arguments: { phone: '+14155550188' } } },
        CreateTaskResultSchema,
        { task: {} },
      );
      assert.match(String(task.statusMessage), /^Waiting for a person to approve in Slack /);
      assert.equal((await teamClient.experimental.tasks.cancelTask(task.taskId)).status, 'cancelled');
      const update = h.slack.callsOf('/api/chat.update').find((call) => String(call.body.text).includes(task.taskId));
      assert.match(String(update?.body.text), /Withdrawn by the agent that asked/);
      await eventually('approval.resolved, withdrawn', () =>
        events.find((event) => event.data.approval_id === task.taskId && event.data.status === 'withdrawn'),
      );
      // Still listed: withdrawing does nothing to the number.
      const check = structured<{ listed: boolean }>(await h.tool(team, 'service_check_dnc', { phone: '+14155550188' }));
      assert.equal(check.listed, true);
    } finally {
      await teamClient.close();
    }
  });

  test('a task call refused before any approval exists is a JSON-RPC error with the tool error text', async () => {
    await rejects(sendAsTask(client1, 'inv_00000000000000000000'), ErrorCode.InvalidParams, /^MCP error -32602: not_found: /);
    const readOnly = await sdkClient(url1, { ...org, scope: 'read' });
    try {
      await rejects(sendAsTask(readOnly, (await draftInvoice()).id), ErrorCode.InvalidParams, /forbidden_scope/);
    } finally {
      await readOnly.close();
    }
  });

  test('a client without tasks still gets pending_approval, with the console link', async () => {
    const invoice = await draftInvoice();
    await client1.listTools();
    const result = await client1.callTool({ name: 'service_send_invoice', arguments: { invoice_id: invoice.id } });
    const pending = result.structuredContent as PendingApproval;
    assert.equal(pending.status, 'pending_approval');
    assert.equal(pending.console_url, `${publicBaseUrl}/dashboard/approvals/${pending.approval_id}`);
    // It is a task all the same, for a client that learns of tasks later.
    assert.equal((await client2.experimental.tasks.getTask(pending.approval_id)).status, 'working');
    assert.equal(await invoiceStatus(invoice.id), 'draft');
  });

  test('with no chat linked the task is created all the same: it names the console page, and a decision there ends it', async () => {
    // `other` linked no channel: the approval waits in the console only.
    const invoice = await draftInvoiceFor(h, other);
    const { task } = await sendAsTask(otherClient, invoice.id);
    assert.equal(task.status, 'working');
    const page = `${publicBaseUrl}/dashboard/approvals/${task.taskId}`;
    assert.ok(
      String(task.statusMessage).startsWith(`Waiting for a person to approve in the console: ${page}; expires at `),
      task.statusMessage,
    );
    const person = { ...other, user_id: 'usr_consoleperson0001' };
    const decided = await decideInConsole(h.deps, person, { id: task.taskId, decision: 'reject', approver_name: 'Ada' });
    assert.equal(decided.acted, true);
    const failed = await otherClient.experimental.tasks.getTask(task.taskId);
    assert.equal(failed.status, 'failed');
    assert.match(String(failed.statusMessage), /^Rejected by console:Ada \(usr_consoleperson0001\); nothing was done\.$/);
    assert.equal(structured<Invoice>(await h.tool(other, 'service_get_invoice', { invoice_id: invoice.id })).status, 'draft');
  });
});
