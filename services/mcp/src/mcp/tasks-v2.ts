import { ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Approval } from '@voice/proto';
import { z } from 'zod';
import { clientCapabilities } from './envelope.js';
import { type ApprovalTaskStore, taskResult } from './tasks.js';

/**
 * The tasks extension for 2026-07-28 clients (`io.modelcontextprotocol/tasks`; the 2026 core has no
 * tasks). A client that declares the extension on a request gets an approval tool's call as a task at once
 * (`resultType: "task"`), then polls `tasks/get` and may `tasks/cancel`. As in the 2025 era (tasks.ts), a
 * task IS an approval row: any replica answers for it, nothing is kept in memory, and another organization's
 * task id is unknown.
 *
 * The outcome is a tool result, so a finished approval is a `completed` task whose `result` is what the
 * call returns in the other shapes: the action's result, or an `isError` result saying why nothing was
 * done. `failed` (a JSON-RPC error) never happens for a decided approval; a withdrawn one is `cancelled`.
 */
export const tasksExtension = 'io.modelcontextprotocol/tasks';

/** Whether this request's client declared the tasks extension. */
export function declaresTasks(ctx: ServerContext): boolean {
  const extensions = clientCapabilities(ctx)?.extensions as Record<string, unknown> | undefined;
  return extensions?.[tasksExtension] !== undefined;
}

type TaskV2Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The task as `tools/call` and `tasks/get` give it, with its result or nothing while it works. */
export async function taskV2(store: ApprovalTaskStore, approval: Approval): Promise<Record<string, unknown>> {
  const task = store.taskOf(approval);
  const status: TaskV2Status = task.status === 'working' ? 'working' : approval.status === 'withdrawn' ? 'cancelled' : 'completed';
  return {
    taskId: task.taskId,
    status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: null,
    ...(task.pollInterval !== undefined ? { pollIntervalMs: task.pollInterval } : {}),
    ...(status === 'completed' ? { result: taskResult(approval) } : {}),
  };
}

const taskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });

/** `tasks/get`, `tasks/update` and `tasks/cancel` of the extension, on one request's server. */
export function serveTasksV2(server: Server, store: ApprovalTaskStore): void {
  const known = async (taskId: string): Promise<Approval> => {
    const approval = await store.approval(taskId);
    if (!approval) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return approval;
  };
  server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }) => ({
    resultType: 'complete',
    ...(await taskV2(store, await known(taskId))),
  }));
  server.setRequestHandler('tasks/update', { params: taskIdParams }, async ({ taskId }) => {
    await known(taskId);
    // An approval's task never asks its client for input: a person decides it elsewhere.
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} asks for no input.`);
  });
  server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }) => {
    await known(taskId);
    // Withdraws the approval, or says a person decided first (ApprovalTaskStore.updateTaskStatus).
    await store.updateTaskStatus(taskId, 'cancelled');
    return { resultType: 'complete' };
  });
}
