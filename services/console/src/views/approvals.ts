import {
  type Approval,
  type ApprovalChannel,
  type ApprovalChannelsOverview,
  type ApprovalStatus,
  type ApprovalTool,
  approvalStatuses,
  approvalTools,
  type ChannelLinkCode,
  livemodeOf,
  slackLinkCommand,
} from '@voice/proto';
import { dataOrgId } from '../domain/identity.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, testDataBadge } from './components.js';
import { confirmPage } from './confirm.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export const approvalsPath = '/dashboard/approvals';
const approvalPath = (id: string) => `${approvalsPath}/${id}`;

const minute = (date: string | null) => (date ? `${date.slice(0, 16).replace('T', ' ')} UTC` : '—');

/** Who decided and where, e.g. `console:Alice (usr_…) in the console`; an expiry had nobody. */
function resolution(approval: Approval): string {
  if (!approval.resolved_by) return approval.status === 'expired' ? 'nobody (expired)' : '—';
  const via =
    approval.resolved_via === 'console'
      ? 'the console'
      : approval.resolved_via === 'mcp'
        ? "the agent's MCP client"
        : approval.resolved_via;
  return `${approval.resolved_by}, in ${via}`;
}

const statusLabels: Record<ApprovalStatus, string> = {
  pending: 'pending: waiting for a person',
  approved: 'approved: running',
  rejected: 'rejected: nothing was done',
  expired: 'expired: nothing was done',
  executed: 'executed',
  failed: 'failed',
  withdrawn: 'withdrawn by the agent: nothing was done',
};

export interface ApprovalsView {
  approvals: Approval[];
  /** The filters the list was asked with (the "Older approvals" link keeps them: its cursor is bound to them). */
  filters: { status?: ApprovalStatus | undefined; tool?: ApprovalTool | undefined };
  /** The cursor of the next, older page, if any. */
  nextCursor: string | null;
  channels: ApprovalChannelsOverview;
}

function filterForm(filters: ApprovalsView['filters']): Html {
  const select = (id: string, name: string, label: string, values: readonly string[], chosen: string | undefined) =>
    html`<label for="${id}">${label}</label>
      <select id="${id}" name="${name}">
        <option value="" ${chosen === undefined ? html`selected` : ''}>all</option>
        ${values.map((value) => html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${value}</option>`)}
      </select>`;
  return html`<form method="get" action="${approvalsPath}" class="filter-bar" role="search" aria-label="Filter approvals">
      ${select('approval-status', 'status', 'Status', approvalStatuses, filters.status)}
      ${select('approval-tool', 'tool', 'Tool', approvalTools, filters.tool)}
      <button type="submit" id="approval-filter">Show</button>
    </form>`;
}

/** "Test" by an approval of a test twin: whose it is follows from the organization the page asked for. */
const testMark = (signedIn: SignedIn): Html | string => (livemodeOf(dataOrgId(signedIn)) ? '' : html` ${testDataBadge()}`);

function approvalsTable(signedIn: SignedIn, view: ApprovalsView): Html {
  if (view.approvals.length === 0) {
    const filtered = view.filters.status !== undefined || view.filters.tool !== undefined;
    return emptyState({
      id: 'approvals-none',
      title: `No approvals${filtered ? ' match these filters' : ''}.`,
      next: filtered
        ? 'Show all statuses and tools to see the others.'
        : 'They appear here when an agent asks to run a destructive action; link a chat below so approvers hear of them.',
    });
  }
  return dataTable({
    caption: 'Approvals, newest first',
    head: html`<th scope="col">Asked</th><th scope="col">Tool</th><th scope="col">Summary</th><th scope="col">Status</th>
        <th scope="col">Requested by</th><th scope="col">Expires</th><th scope="col">Decided by</th>`,
    rows: view.approvals.map(
      (approval) => html`<tr>
          <td>${minute(approval.created_at)}</td>
          <td><code>${approval.tool}</code></td>
          <td><a href="${approvalPath(approval.id)}">${approval.summary}</a></td>
          <td>${approval.status}${testMark(signedIn)}</td>
          <td><code>${approval.requested_by}</code></td>
          <td>${minute(approval.expires_at)}</td>
          <td>${resolution(approval)}</td>
        </tr>`,
    ),
  });
}

function olderLink(view: ApprovalsView): Html | string {
  if (!view.nextCursor) return '';
  const { status, tool } = view.filters;
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(tool ? { tool } : {}), cursor: view.nextCursor });
  return html`<p><a id="approvals-next" href="${approvalsPath}?${query.toString()}" rel="next">Older approvals</a></p>`;
}

const channelTarget = (channel: ApprovalChannel) =>
  channel.kind === 'telegram'
    ? `chat ${channel.chat_id}`
    : `channel ${channel.channel_id}${channel.webhook_url_set ? ', through an incoming webhook' : ''}`;

/** Who proved the chat is theirs by sending the code from it; chats linked by id before codes existed say so. */
const channelLinker = (channel: ApprovalChannel) => channel.linked_by ?? 'by its id, before link codes (not verified)';

/**
 * Link forms for the kinds the platform offers; a plain sentence for those it does not. No form asks for a
 * chat id: a chat is linked by a one-time code sent from it, which only someone in that chat can do.
 */
function linkForms(signedIn: SignedIn, available: ApprovalChannelsOverview['available']): Html {
  const telegram = available.telegram
    ? html`<form method="post" action="${approvalsPath}/channels/telegram/link-code" class="stack">
        ${csrfField(signedIn.csrfToken)}
        <p class="help" id="telegram-help">You get a one-time code to send to the platform's bot from the approvers' Telegram chat or group: the chat it comes from is linked, replacing the Telegram chat linked before.</p>
        <button type="submit" id="telegram-link" aria-describedby="telegram-help">Link a Telegram chat…</button>
      </form>`
    : html`<p class="notice" role="status" id="telegram-unavailable">This platform has no Telegram bot configured, so approvals cannot be sent to Telegram. Use Slack, or ask the operator to set one up.</p>`;
  const slack = available.slack
    ? html`<form method="post" action="${approvalsPath}/channels/slack/link-code" class="stack">
        ${csrfField(signedIn.csrfToken)}
        <p class="help" id="slack-help">You get a one-time code to send with the platform's app's <code>${slackLinkCommand}</code> command from the approvers' Slack channel: the channel it comes from is linked, replacing the Slack channel linked before. Invite the app to the channel first.</p>
        <label for="slack-webhook">Incoming-webhook URL${available.slack_bot ? ' (optional)' : ''}</label>
        <input id="slack-webhook" name="webhook_url" type="url" maxlength="2048" ${available.slack_bot ? '' : html`required`} placeholder="https://hooks.slack.com/services/…" aria-describedby="slack-webhook-help">
        <p class="help" id="slack-webhook-help">${
          available.slack_bot
            ? 'When set, requests are posted through this webhook instead of by the app.'
            : "This platform's Slack app cannot post by itself: give the channel's incoming-webhook URL."
        }</p>
        <button type="submit" id="slack-link" aria-describedby="slack-help">Link a Slack channel…</button>
      </form>`
    : html`<p class="notice" role="status" id="slack-unavailable">This platform has no Slack app configured, so approvals cannot be sent to Slack. Use Telegram, or ask the operator to set one up.</p>`;
  return html`<h3>Telegram</h3>${telegram}<h3>Slack</h3>${slack}`;
}

function channelsSection(signedIn: SignedIn, channels: ApprovalChannelsOverview): Html {
  const manage = canManage(signedIn.role);
  return html`<section aria-labelledby="channels-heading" id="channels">
      <h2 id="channels-heading">Approval channels</h2>
      <p>Approval requests are also sent to these chats, with Approve and Reject buttons, so that approvers hear of them at once. Linking one is optional: every request waits on this page either way.</p>
      ${
        channels.data.length === 0
          ? html`<p id="channels-none">No channel is linked.</p>`
          : dataTable({
              caption: 'Linked channels',
              head: html`<th scope="col">App</th><th scope="col">Where</th><th scope="col">Linked</th><th scope="col">Linked by</th>${manage ? html`<th scope="col">Actions</th>` : ''}`,
              rows: channels.data.map(
                (channel) => html`<tr id="channel-${channel.kind}">
                  <td>${channel.kind === 'telegram' ? 'Telegram' : 'Slack'}</td>
                  <td>${channelTarget(channel)}</td>
                  <td>${minute(channel.updated_at)}</td>
                  <td>${channelLinker(channel)}</td>
                  ${manage ? html`<td><a href="${approvalsPath}/channels/${channel.kind}/unlink" id="unlink-${channel.kind}" class="button">Unlink…</a></td>` : ''}
                </tr>`,
              ),
            })
      }
      ${manage ? linkForms(signedIn, channels.available) : ''}
    </section>`;
}

export function approvalsPage(signedIn: SignedIn, view: ApprovalsView, options: { error?: string; info?: string } = {}) {
  return page({
    title: 'Approvals',
    signedIn,
    path: approvalsPath,
    live: true,
    body: html`<h1>Approvals</h1>
      ${notice('error', options.error)}
      ${notice('info', options.info)}
      <p>An agent's destructive MCP action (deleting a lead, removing a do-not-call entry, sending an invoice, delivering a project) runs only after a person approves it: on the approval’s page here (owners and admins), or in a linked Telegram or Slack chat. Each approval is decided once, wherever that happens first.</p>
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">Requests</h2>
        ${filterForm(view.filters)}
        <div id="approvals-live" data-live="approval" data-live-label="Approvals">
        ${approvalsTable(signedIn, view)}
        ${olderLink(view)}
        </div>
      </section>
      ${channelsSection(signedIn, view.channels)}`,
  });
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * Approve and Reject, for owners and admins while the approval waits; nobody else gets the forms. An
 * approval shown to a person's MCP client as a URL elicitation is theirs alone to decide here (`boundTo`
 * names them for everyone else, who are told why).
 */
function decisionForms(signedIn: SignedIn, approval: Approval, boundTo: string | undefined): Html | string {
  if (approval.status !== 'pending' || !canManage(signedIn.role)) return '';
  if (boundTo) {
    return html`<section aria-labelledby="decide-heading">
      <h2 id="decide-heading">Decide</h2>
      <p id="approval-bound">This approval was sent to the MCP client of ${boundTo}, who owns the key that asked for it, so only they can decide it here. Approvers in the linked Telegram or Slack chat can still decide it there.</p>
    </section>`;
  }
  const action = `${approvalPath(approval.id)}/decide`;
  const form = (decision: 'approve' | 'reject', label: string) =>
    html`<form method="post" action="${action}" class="inline">
      ${csrfField(signedIn.csrfToken)}
      <input type="hidden" name="decision" value="${decision}">
      <button type="submit" id="approval-${decision}" class="${decision === 'approve' ? 'primary' : ''}">${label}</button>
    </form>`;
  return html`<section aria-labelledby="decide-heading">
      <h2 id="decide-heading">Decide</h2>
      <p>Approving runs the action above with exactly these arguments, as the key that asked for it. Rejecting does nothing. Whichever comes first, here or in a chat, is the only decision.</p>
      <div class="actions">${form('approve', 'Approve and run')} ${form('reject', 'Reject')}</div>
    </section>`;
}

function outcome(approval: Approval): Html {
  return html`<section aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">Outcome</h2>
      <dl>
        <dt>Status</dt><dd>${badge(approval.status, statusLabels[approval.status], 'approval-status-value')}</dd>
        <dt>Decided by</dt><dd id="approval-resolved">${resolution(approval)}</dd>
        <dt>Decided at</dt><dd>${minute(approval.resolved_at)}</dd>
      </dl>
      ${approval.result ? html`<h3>Result</h3><pre id="approval-result"><code>${json(approval.result)}</code></pre>` : ''}
      ${approval.error ? html`<h3>Error</h3><p id="approval-error"><code>${approval.error.code}</code>: ${approval.error.message}</p>` : ''}
    </section>`;
}

export function approvalPage(signedIn: SignedIn, approval: Approval, options: { error?: string; info?: string; boundTo?: string } = {}) {
  return page({
    title: `Approval ${approval.id}`,
    signedIn,
    path: approvalsPath,
    body: html`<h1>Approval <code>${approval.id}</code>${testMark(signedIn)}</h1>
      ${notice('error', options.error)}
      ${notice('info', options.info)}
      <p id="approval-summary">${approval.summary}</p>
      <dl>
        <dt>Tool</dt><dd><code>${approval.tool}</code></dd>
        <dt>Requested by</dt><dd>API key <code>${approval.requested_by}</code>, ${minute(approval.created_at)}</dd>
        <dt>Expires</dt><dd>${minute(approval.expires_at)}</dd>
        <dt>Arguments digest</dt><dd><code>${approval.arguments_digest}</code></dd>
      </dl>
      <h2>Frozen arguments</h2>
      <p class="help">The action runs with exactly these, whatever the agent sends later.</p>
      <pre id="approval-arguments"><code>${json(approval.arguments)}</code></pre>
      ${decisionForms(signedIn, approval, options.boundTo)}
      ${outcome(approval)}
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Sent to</h2>
        ${
          approval.deliveries.length === 0
            ? html`<p id="approval-no-chat">No chat is linked, so it waits for a decision on this page only.</p>`
            : html`<ul id="approval-deliveries">${approval.deliveries.map(
                (delivery) =>
                  html`<li>${delivery.channel === 'telegram' ? 'Telegram' : 'Slack'}: ${delivery.status}${delivery.error ? ` (${delivery.error})` : ''}</li>`,
              )}</ul>`
        }
      </section>
      <p><a href="${approvalsPath}">All approvals</a></p>`,
  });
}

/**
 * A link code, shown once: the answer to the POST that made it (no redirect, `no-store`). Sending it from a
 * chat links that chat; the bot answers there. The copy button is hidden until copy.js enables it.
 */
export function linkCodePage(signedIn: SignedIn, code: ChannelLinkCode) {
  const name = code.kind === 'telegram' ? 'Telegram chat' : 'Slack channel';
  return page({
    title: `Link a ${name}`,
    signedIn,
    path: approvalsPath,
    body: html`<h1>Link a ${name}</h1>
      <p>Send this from the ${name} that should get this organization's approval requests. The bot answers there when it is linked. The code works once, until ${minute(code.expires_at)}.</p>
      <p><label for="link-command">${code.kind === 'telegram' ? 'Send to the bot in the chat' : 'Send in the channel'}</label></p>
      <p><input id="link-command" readonly value="${code.command}" size="40" spellcheck="false" autocomplete="off">
        <button type="button" class="copy" data-copy="link-command" hidden>Copy</button></p>
      ${
        code.kind === 'telegram'
          ? html`<p class="help">In a group, add the bot first. ${
              code.deep_link
                ? html`Or <a id="link-deep-link" href="${code.deep_link}">choose a group in Telegram</a>: Telegram adds the bot there and sends the code for you.`
                : ''
            }</p>`
          : html`<p class="help">Invite the app to the channel first; a private channel needs it too.</p>`
      }
      <p>Whoever is in that chat can approve or reject this organization's agents' destructive actions, so link only the approvers' own.</p>
      <p><a href="${approvalsPath}#channels">Back to approval channels</a></p>
      <script src="/dashboard/static/copy.js" defer></script>`,
  });
}

export function unlinkConfirmPage(signedIn: SignedIn, channel: ApprovalChannel) {
  const name = channel.kind === 'telegram' ? 'Telegram' : 'Slack';
  return confirmPage(signedIn, {
    title: `Unlink ${name}`,
    heading: `Unlink ${name}`,
    path: approvalsPath,
    question: html`Stop sending approval requests to the ${name} ${channelTarget(channel)}? Buttons on requests already sent there stop working; with no channel left, agents' destructive actions are refused.`,
    action: `${approvalsPath}/channels/${channel.kind}/unlink`,
    buttonId: 'unlink-confirm',
    buttonLabel: `Unlink ${name}`,
    cancelHref: `${approvalsPath}#channels`,
  });
}
