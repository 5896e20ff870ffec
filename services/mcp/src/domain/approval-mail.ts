import { consoleRpc, type Identity, livemodeOf } from '@voice/proto';
import type { McpDeps } from '../deps.js';
import type { ApprovalRow } from '../store/approvals.js';
import { markedForMode } from './approval-texts.js';

/** One line, at most `max` characters: a summary goes into a Subject header. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * E-mails a new approval request to each owner and admin of its organization (the console knows them:
 * `svc.console.approvers.list`), with the link to its page in the console. An approval bound to one person
 * (an MCP URL elicitation) goes to that person only, when an owner or admin: nobody else may decide it in
 * the console. The message says what is asked and where; the frozen arguments stay on the console page,
 * behind sign-in.
 */
export async function mailApprovers(deps: McpDeps, identity: Identity, row: ApprovalRow, link: string): Promise<void> {
  const { data } = await deps.bus.call(consoleRpc.listApprovers, identity, {});
  const approvers = row.boundUserId ? data.filter((approver) => approver.user_id === row.boundUserId) : data;
  const summary = oneLine(row.summary, 2000);
  const livemode = livemodeOf(row.orgId);
  await Promise.all(
    approvers.map((approver) =>
      deps.mailer.send({
        to: approver.email,
        subject: markedForMode(livemode, `Approval needed in ${row.orgId}: ${oneLine(row.summary, 150)}`),
        text: [
          `Hello ${oneLine(approver.name, 200)},`,
          '',
          markedForMode(livemode, `An AI agent of your organization ${row.orgId} asks for approval before it acts:`),
          '',
          `  ${summary}`,
          '',
          `Tool: ${row.tool}`,
          `Asked by API key ${row.requestedBy}`,
          `Expires: ${row.expiresAt.toISOString()}`,
          '',
          'Nothing is done until a person approves. Approve or reject it in the console:',
          link,
          '',
          `You get this e-mail as an ${approver.role} of the organization.`,
        ].join('\n'),
        link,
      }),
    ),
  );
}
