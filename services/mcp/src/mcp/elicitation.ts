import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { type Approval, type Identity, type McpSelection, scopeAllows } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import { consoleApprovalUrl, markedForMode } from '../domain/approval-texts.js';
import { isPlainObject } from '../json.js';
import { bindApproval, findApproval, toApproval } from '../store/approvals.js';
import type { ToolCatalog } from './catalog.js';
import type { ClientFeatures } from './session.js';
import { taskResult } from './tasks.js';

/**
 * URL-mode elicitation (MCP 2025-11-25) of an approval: a client that declared `elicitation.url` is shown
 * the approval's page in the console, so the person may decide in the browser while the tool call waits.
 *
 * The server is stateless, so the elicitation cannot wait in an SDK server for its answer: the client POSTs
 * the answer as a request of its own, which any replica may receive. That replica relays it over NATS
 * (`relayAnswers`) to every replica; the one whose tool call sent the elicitation takes it
 * (`ElicitationAnswers`). Only a decline or cancel changes anything (the call returns pending_approval at
 * once); the decision itself is read from the approval row, as tasks read it, so a tap in Telegram or
 * Slack ends the wait too.
 */
export type ElicitAction = 'accept' | 'decline' | 'cancel';

const answersSubject = 'mcp.elicitation.answers';
/** Our elicitation requests' JSON-RPC ids; the SDK's own requests are numbers, so none is taken for ours. */
const requestIdPrefix = 'elicit-';

interface RelayedAnswer {
  request_id: string;
  org_id: string;
  key_id: string;
  action: ElicitAction;
}

interface Waiter {
  orgId: string;
  keyId: string;
  answered: (action: ElicitAction) => void;
}

/** The elicitations this process's tool calls are waiting on, by their JSON-RPC request id. */
export class ElicitationAnswers {
  private readonly waiting = new Map<string, Waiter>();

  constructor(deps: McpDeps) {
    deps.bus.listen(answersSubject, (data) => {
      const answer = data as RelayedAnswer;
      const waiter = this.waiting.get(answer.request_id);
      // Answered with the same credential as the call that asked, or ignored: another key's client must
      // not end someone else's wait (even though all it could do is make it return early).
      if (waiter && waiter.orgId === answer.org_id && waiter.keyId === answer.key_id) waiter.answered(answer.action);
    });
  }

  /** A new request id whose answer resolves the promise; `done` forgets it. */
  expect(identity: Identity): { requestId: string; answer: Promise<ElicitAction>; done: () => void } {
    const requestId = `${requestIdPrefix}${randomUUID()}`;
    const answer = new Promise<ElicitAction>((answered) =>
      this.waiting.set(requestId, { orgId: identity.org_id, keyId: identity.key_id, answered }),
    );
    return { requestId, answer, done: () => this.waiting.delete(requestId) };
  }
}

/**
 * When a POST holds only answers to our elicitations, relays each to every replica and returns true (the
 * route then answers 202 as the transport would). An answer is a result `{action}`, or a JSON-RPC error
 * (the client could not show it), which counts as cancel.
 */
export function relayAnswers(deps: McpDeps, identity: Identity, body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  const answers = messages.filter(
    (message): message is { id: string; result?: unknown; error?: unknown } =>
      isPlainObject(message) &&
      message.method === undefined &&
      typeof message.id === 'string' &&
      message.id.startsWith(requestIdPrefix) &&
      (message.result !== undefined || message.error !== undefined),
  );
  if (messages.length === 0 || answers.length !== messages.length) return false;
  for (const answer of answers) {
    const action = isPlainObject(answer.result) ? answer.result.action : undefined;
    const relayed: RelayedAnswer = {
      request_id: answer.id,
      org_id: identity.org_id,
      key_id: identity.key_id,
      action: action === 'accept' || action === 'decline' ? action : 'cancel',
    };
    deps.bus.broadcast(answersSubject, relayed);
  }
  return true;
}

/**
 * Whether this POST is a tool call to answer with an elicitation: one `tools/call` (not a task) of an
 * approval tool the key may call, from a client whose session declared URL elicitation, made with a
 * credential that belongs to a person. The spec binds a URL elicitation to the user it is shown to; a key
 * the admin CLI made belongs to nobody, so its approvals are only sent to the channels (pending_approval).
 */
export function wantsElicitation(
  body: unknown,
  features: ClientFeatures,
  identity: Identity,
  selection: McpSelection,
  catalog: ToolCatalog,
): boolean {
  if (!features.elicitUrl || !identity.owner_user_id || selection.readonly || !isPlainObject(body)) return false;
  if (body.method !== 'tools/call' || !isPlainObject(body.params) || body.params.task !== undefined) return false;
  const name = body.params.name;
  return typeof name === 'string' && catalog.isApprovalTool(name, identity, selection) && scopeAllows(identity.scope, 'read-write');
}

const channelNames = { telegram: 'Telegram', slack: 'Slack' } as const;

export function elicitationMessage(approval: Approval): string {
  const sent = [...new Set(approval.deliveries.filter((d) => d.status === 'sent').map((d) => channelNames[d.channel]))];
  const channels = sent.length > 0 ? ` It was also sent to ${sent.join(' and ')}; deciding there works too.` : '';
  return markedForMode(
    approval.livemode,
    `Approval needed before the agent's action runs: ${approval.summary} Open the console's page to approve or reject it (only you can decide it there).${channels} Expires at ${approval.expires_at}.`,
  );
}

/** The statuses after which an approval changes no more. */
export const finishedStatuses = new Set<Approval['status']>(['executed', 'rejected', 'expired', 'failed', 'withdrawn']);

/**
 * Shows a pending approval (the result of the tool call) as a URL elicitation on the call's own stream and
 * waits for a decision, up to APPROVAL_ELICITATION_WAIT_MS: decided, the call ends with the outcome (as a
 * task's result) after `notifications/elicitation/complete`; declined, cancelled, still waiting, or the
 * approval bound to someone else already, it ends with the pending_approval result it had.
 */
export async function elicitDecision(options: {
  deps: McpDeps;
  identity: Identity;
  server: Server;
  answers: ElicitationAnswers;
  relatedRequestId: RequestId;
  signal: AbortSignal;
  pending: CallToolResult;
}): Promise<CallToolResult> {
  const { deps, identity, server, answers, relatedRequestId, signal, pending } = options;
  const approvalId = (pending.structuredContent as { status?: string; approval_id?: string } | undefined)?.approval_id;
  const transport = server.transport;
  if (pending.isError || !approvalId || !identity.owner_user_id || !transport) return pending;
  const bound = await bindApproval(deps.prisma, identity.org_id, approvalId, identity.owner_user_id);
  if (!bound) return pending;

  const send = (message: JSONRPCMessage) => transport.send(message, { relatedRequestId });
  const asked = answers.expect(identity);
  let declined = false;
  // Ends a pause early on a decline or cancel; an accept only means the page was opened, so polling goes on.
  const refused = asked.answer.then((action): Promise<void> | undefined => {
    if (action === 'accept') return new Promise<void>(() => {});
    declined = true;
    return undefined;
  });
  const closed = aborted(signal);
  try {
    await send({
      jsonrpc: '2.0',
      id: asked.requestId,
      method: 'elicitation/create',
      params: {
        mode: 'url',
        elicitationId: approvalId,
        url: consoleApprovalUrl(deps, approvalId),
        message: elicitationMessage(toApproval(bound, deps.now())),
      },
    });
    const until = Date.now() + deps.env.APPROVAL_ELICITATION_WAIT_MS;
    for (;;) {
      const approval = toApproval(await findApproval(deps.prisma, identity.org_id, approvalId), deps.now());
      if (finishedStatuses.has(approval.status)) {
        await send({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: approvalId } });
        return taskResult(approval);
      }
      const left = until - Date.now();
      if (declined || signal.aborted || left <= 0) return pending;
      await pause(Math.min(left, deps.env.APPROVAL_TASK_POLL_MS), [refused, closed]);
    }
  } catch (error) {
    // The stream went away (the client hung up): the approval stands, in the channels and the console.
    deps.logger.warn({ err: error, approval_id: approvalId }, 'approval elicitation ended early');
    return pending;
  } finally {
    asked.done();
  }
}

export function pause(ms: number, orUntil: Promise<unknown>[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), ...orUntil]).then(() => clearTimeout(timer));
}

export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
