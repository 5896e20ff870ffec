import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { type CallToolResult, ErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@voice/kit';
import { type Approval, type ApprovalOutcome, approvalOutcomeSchema, type Identity, isErrorCode, scopeAllows } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { consoleApprovalUrl, markedForMode } from '../domain/approval-texts.js';
import { withdrawApproval } from '../domain/approvals.js';
import { findApproval, listApprovals, toApproval } from '../store/approvals.js';
import { toolError } from './tool-errors.js';

/**
 * MCP tasks (spec 2025-11-25) of the approval tools. A task IS an approval row: its id is the approval id,
 * its status and result are read from the database on every request, so any replica answers for a task
 * another one created and nothing is kept in memory. Bound to the organization of the caller (the
 * authorization context the platform's data belongs to: every key of an organization sees its approvals
 * through service_get_approval too); another organization's task id is "not found".
 */
export class ApprovalTaskStore implements TaskStore {
  constructor(
    private readonly deps: McpDeps,
    private readonly identity: Identity,
  ) {}

  /** Tasks start only as approvals (`ToolDefinition.startTask`), never from the SDK's generic path. */
  async createTask(): Promise<Task> {
    throw new McpError(ErrorCode.InvalidRequest, 'Only the approval tools run as tasks.');
  }

  async getTask(taskId: string): Promise<Task | null> {
    const approval = await this.approval(taskId);
    return approval ? this.taskOf(approval) : null;
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const approval = await this.approval(taskId);
    if (!approval) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return taskResult(approval);
  }

  /** Results come from the approval's own outcome; nothing stores one from outside. */
  async storeTaskResult(): Promise<void> {
    throw new McpError(ErrorCode.InvalidRequest, "An approval's task ends when a person decides.");
  }

  /**
   * The only change a client can make is `tasks/cancel`: the agent withdraws its approval. Refused when a
   * person decided first (the claim is once-only), with the error the spec gives for a finished task.
   */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') throw new McpError(ErrorCode.InvalidRequest, 'A task of an approval changes only by a decision.');
    if (!scopeAllows(this.identity.scope, 'read-write')) {
      throw new McpError(ErrorCode.InvalidRequest, 'forbidden_scope: withdrawing an approval needs a read-write key.');
    }
    if (!(await this.approval(taskId))) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const { withdrawn, approval } = await withdrawApproval(this.deps, this.identity, taskId);
    if (!withdrawn) {
      const current = toApproval(approval, this.deps.now());
      const by = current.resolved_by ? ` by ${current.resolved_by}` : '';
      throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task: the approval is already ${current.status}${by}.`);
    }
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    try {
      const page = await listApprovals(
        this.deps.prisma,
        this.identity.org_id,
        { limit: 50, ...(cursor ? { cursor } : {}) },
        this.deps.now(),
      );
      return { tasks: page.data.map((approval) => this.taskOf(approval)), ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}) };
    } catch (error) {
      if (error instanceof ApiError) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${error.message}`);
      throw error;
    }
  }

  /** The approval of this organization with that id, or null (another organization's, or no such id). */
  async approval(taskId: string): Promise<Approval | null> {
    try {
      return toApproval(await findApproval(this.deps.prisma, this.identity.org_id, taskId), this.deps.now());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  }

  /**
   * Often at first (a person often decides within a minute), then less as the approval waits: every
   * tasks/get is a request on the key's quota, and a day of polls every 5 s would be 17,000 of them.
   */
  private pollInterval(approval: Approval): number {
    const waitedMs = this.deps.now().getTime() - Date.parse(approval.created_at);
    return Math.min(maxPollIntervalMs, Math.max(this.deps.env.APPROVAL_TASK_POLL_MS, Math.round(waitedMs / 10)));
  }

  taskOf(approval: Approval): Task {
    const status = taskStatus(approval);
    // A pending approval the sweep has not marked yet is expired from its expiry on.
    const lastUpdatedAt = approval.status === 'expired' && approval.resolved_at === null ? approval.expires_at : approval.updated_at;
    return {
      taskId: approval.id,
      status,
      statusMessage: statusMessage(approval, consoleApprovalUrl(this.deps, approval.id)),
      createdAt: approval.created_at,
      lastUpdatedAt,
      // Approvals are kept (the audit of who decided what), so a task never disappears.
      ttl: null,
      ...(status === 'working' ? { pollInterval: this.pollInterval(approval) } : {}),
    };
  }
}

/** The longest suggested wait between polls of a waiting approval. */
const maxPollIntervalMs = 5 * 60_000;

function taskStatus(approval: Approval): Task['status'] {
  switch (approval.status) {
    case 'pending':
    case 'approved':
      return 'working';
    case 'executed':
      return 'completed';
    case 'withdrawn':
      return 'cancelled';
    case 'rejected':
    case 'expired':
    case 'failed':
      // For a tool call, a result with isError is a failed task (spec, "Task Status").
      return 'failed';
  }
}

const channelNames = { telegram: 'Telegram', slack: 'Slack' } as const;

function statusMessage(approval: Approval, consoleUrl: string): string {
  const by = approval.resolved_by ? ` by ${approval.resolved_by}` : '';
  switch (approval.status) {
    case 'pending': {
      const sent = [...new Set(approval.deliveries.filter((d) => d.status === 'sent').map((d) => channelNames[d.channel]))];
      // The console always shows a pending approval; the chats the request reached are named first.
      const where = sent.length > 0 ? `${sent.join(' and ')} (or in the console: ${consoleUrl})` : `the console: ${consoleUrl}`;
      return markedForMode(
        approval.livemode,
        `Waiting for a person to approve in ${where}; expires at ${approval.expires_at}. Nothing was done yet.`,
      );
    }
    case 'approved':
      return `Approved${by}; the action is running.`;
    case 'executed':
      return `Approved${by} and done.`;
    case 'rejected':
      return `Rejected${by}; nothing was done.`;
    case 'expired':
      return `Nobody approved before ${approval.expires_at}; nothing was done.`;
    case 'failed':
      return `Not done: ${approval.error?.code}: ${approval.error?.message}`;
    case 'withdrawn':
      return `Withdrawn${by} before anyone decided; nothing was done.`;
  }
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** What the tool call ends with, as `tasks/result` returns it: the action's result, or why nothing was done. */
export function taskResult(approval: Approval): CallToolResult {
  const by = approval.resolved_by ? ` by ${approval.resolved_by}` : '';
  switch (approval.status) {
    case 'executed': {
      const outcome: ApprovalOutcome = approvalOutcomeSchema.parse({
        status: 'executed',
        approval_id: approval.id,
        summary: approval.summary,
        resolved_by: approval.resolved_by,
        resolved_via: approval.resolved_via,
        resolved_at: approval.resolved_at,
        result: approval.result ?? {},
      });
      return { structuredContent: outcome, content: [{ type: 'text', text: JSON.stringify(outcome) }] };
    }
    case 'failed': {
      const code = isErrorCode(approval.error?.code) ? approval.error.code : 'internal';
      const message = approval.resolved_by
        ? `Approved${by}, but the action failed: ${approval.error?.message}`
        : `${approval.error?.message}`;
      return toolError(new ApiError(code, `${message} (approval ${approval.id})`), approval.id);
    }
    case 'rejected':
      return errorResult(
        `rejected: Rejected${by} (approval ${approval.id}); nothing was done; do not ask again unless a person tells you to.`,
      );
    case 'expired':
      return errorResult(
        `expired: Nobody approved before ${approval.expires_at} (approval ${approval.id}); nothing was done; call the tool again if it is still needed.`,
      );
    case 'withdrawn':
      return errorResult(`withdrawn: Withdrawn${by} before anyone decided (approval ${approval.id}); nothing was done.`);
    case 'pending':
    case 'approved':
      // The SDK asks only for a finished task's result (it waits for one otherwise).
      throw new McpError(ErrorCode.InternalError, `Task ${approval.id} has not finished.`);
  }
}
