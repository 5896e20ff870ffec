// The tasks extension for 2026-07-28 clients: an approval tool called by a client that declares
// `io.modelcontextprotocol/tasks` is a task at once; tasks/get on another replica follows the approval row to
// its outcome; tasks/cancel withdraws it; another organization's task id is unknown; a read key may look,
// not cancel. The 2025-11-25 tasks of the same rows are tasks.int.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  isToolCallTaskResultV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import type { Identity } from '@voice/proto';
import { draftInvoiceFor, type McpHarness, modernRpc, startMcpHarness, twoReplicas } from './support/harness.js';

const approverChat = '-1003000000999';
const tasksCapability = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

describe('tasks extension (2026-07-28) over approval rows', () => {
  let h: McpHarness;
  let replicas: Awaited<ReturnType<typeof twoReplicas>> | undefined;
  let url1: string;
  let url2: string;
  let identity: Identity;

  before(async () => {
    h = await startMcpHarness({ APPROVAL_TASK_POLL_MS: '100' });
    identity = await h.identity();
    await h.linkTelegram(identity, approverChat);
    replicas = await twoReplicas(h);
    ({ url1, url2 } = replicas);
  });
  after(async () => {
    await replicas?.close();
    await h.close();
  });

  const startTask = async (as: Identity) => {
    const invoice = await draftInvoiceFor(h, as);
    const started = await modernRpc(
      url1,
      as,
      'tools/call',
      { name: 'service_send_invoice', arguments: { invoice_id: invoice.id } },
      tasksCapability,
    );
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    // Checked with the extension's own wire schemas (@modelcontextprotocol/ext-tasks), as its client reads them.
    assert.ok(isToolCallTaskResultV2('tools/call', started.result));
    CreateTaskResultV2Schema.parse(started.result);
    return { invoice, task: started.result as { taskId: string; status: string; statusMessage: string; pollIntervalMs?: number } };
  };

  test('the call is a working task; a Telegram tap completes it with the sent invoice, read on the other replica', async () => {
    const { task } = await startTask(identity);
    assert.equal(task.status, 'working');
    assert.match(task.taskId, /^apr_/);
    assert.match(task.statusMessage, /Waiting for a person to approve/);
    assert.ok(task.pollIntervalMs && task.pollIntervalMs >= 100);
    const working = await modernRpc(url2, identity, 'tasks/get', { taskId: task.taskId }, tasksCapability);
    GetTaskResultV2Schema.parse(working.result);
    assert.equal(working.result?.status, 'working', JSON.stringify(working));
    assert.equal(working.result?.result, undefined);
    await h.telegramTap(approverChat, `approve:${task.taskId}`);
    const done = await modernRpc(url2, identity, 'tasks/get', { taskId: task.taskId }, tasksCapability);
    assert.equal(done.result?.status, 'completed', JSON.stringify(done));
    GetTaskResultV2Schema.parse(done.result);
    const result = done.result?.result as { structuredContent: { status: string; result: { status: string } } };
    assert.equal(result.structuredContent.status, 'executed');
    assert.equal(result.structuredContent.result.status, 'sent');
  });

  test('tasks/cancel withdraws it; a read key may look, not cancel; another organization does not find it', async () => {
    const { invoice, task } = await startTask(identity);
    const reader = { ...identity, scope: 'read' as const };
    assert.equal((await modernRpc(url2, reader, 'tasks/get', { taskId: task.taskId })).result?.status, 'working');
    const refused = await modernRpc(url2, reader, 'tasks/cancel', { taskId: task.taskId });
    assert.match(String(refused.error?.message), /forbidden_scope/);
    const stranger = await h.identity();
    const unknown = await modernRpc(url2, stranger, 'tasks/get', { taskId: task.taskId });
    assert.match(String(unknown.error?.message), /not found/i);
    const cancelled = await modernRpc(url2, identity, 'tasks/cancel', { taskId: task.taskId });
    assert.equal(cancelled.result?.resultType, 'complete', JSON.stringify(cancelled));
    CancelTaskResultV2Schema.parse(cancelled.result);
    GetTaskResultV2Schema.parse((await modernRpc(url1, identity, 'tasks/get', { taskId: task.taskId })).result);
    assert.equal((await modernRpc(url1, identity, 'tasks/get', { taskId: task.taskId })).result?.status, 'cancelled');
    const again = await modernRpc(url1, identity, 'tasks/cancel', { taskId: task.taskId });
    assert.match(String(again.error?.message), /already withdrawn/);
    const draft = await h.tool(identity, 'service_get_invoice', { invoice_id: invoice.id });
    assert.equal((draft.structuredContent as { status: string }).status, 'draft');
    // An approval's task asks its client for no input.
    const update = await modernRpc(url1, identity, 'tasks/update', { taskId: task.taskId, inputResponses: {} });
    assert.match(String(update.error?.message), /asks for no input/);
  });

  test('without the extension declared, the same call returns pending_approval', async () => {
    const invoice = await draftInvoiceFor(h, identity);
    const plain = await modernRpc(url1, identity, 'tools/call', { name: 'service_send_invoice', arguments: { invoice_id: invoice.id } });
    assert.equal((plain.result?.structuredContent as { status?: string } | undefined)?.status, 'pending_approval', JSON.stringify(plain));
  });
});
