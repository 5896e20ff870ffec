import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, newId } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import { type Approval, type EventEnvelope, type Identity, mcpRpc, type PendingApproval, type RpcInput } from '@voice/proto';
import { type McpHarness, startMcpHarness, structured } from './support/harness.js';

const approverChat = '-1001234500001';

/**
 * The console's NATS operations on approvals: its list and detail, the channels, and a person's decision
 * in the console, the third way to approve beside the Telegram and Slack taps, with the same once-only claim.
 */
describe('approvals over NATS: the console lists, links channels and decides', () => {
  let h: McpHarness;
  let org: Identity;
  /** A person of `org` as the console calls for them: an owner's identity (read-write, with user_id). */
  let owner: Identity;
  let deleteLeadRequests = 0;
  const events: EventEnvelope<'approval.requested' | 'approval.resolved'>[] = [];

  const person = (identity: Identity, scope: Identity['scope'] = 'read-write'): Identity => {
    const userId = newId('user');
    return { ...identity, key_id: userId, user_id: userId, scope };
  };
  const call = <D extends (typeof mcpRpc)[keyof typeof mcpRpc]>(operation: D, identity: Identity, input: RpcInput<D>) =>
    h.deps.bus.call(operation, identity, input);
  async function refusal(work: Promise<unknown>): Promise<ApiError> {
    const error = await work.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ApiError, `expected a refusal, got ${String(error)}`);
    return error;
  }

  /** An agent's lead and its delete request, waiting for approval in the linked Telegram chat. */
  async function pendingDelete(identity: Identity): Promise<{ leadId: string; approvalId: string }> {
    const lead = structured<{ id: string }>(await h.tool(identity, 'service_create_lead', { name: 'Jane Roe', phone: '+14155550123' }));
    const pending = structured<PendingApproval>(await h.tool(identity, 'service_delete_lead', { lead_id: lead.id }));
    assert.equal(pending.status, 'pending_approval');
    return { leadId: lead.id, approvalId: pending.approval_id };
  }
  const leadExists = async (identity: Identity, leadId: string) =>
    !(await h.tool(identity, 'service_get_lead', { lead_id: leadId })).isError;

  before(async () => {
    h = await startMcpHarness();
    org = await h.identity();
    owner = person(org);
    h.deps.bus.connection.subscribe(h.deps.bus.subject('svc.leads.leads.delete'), {
      callback: () => {
        deleteLeadRequests += 1;
      },
    });
    await h.deps.bus.consume({ durable: 'approval-rpc-events-test', types: ['approval.requested', 'approval.resolved'] }, async (event) => {
      events.push(event);
    });
  });
  after(async () => {
    await h.close();
  });

  test('channels: the platform says what it offers; a person gets link codes, links from the chat, lists and unlinks; a member cannot', async () => {
    const empty = await call(mcpRpc.channelsOverview, person(org, 'read'), {});
    assert.deepEqual(empty, { data: [], available: { telegram: true, slack: true, slack_bot: true } });
    const member = await refusal(call(mcpRpc.startChannelLink, person(org, 'read'), { kind: 'telegram' }));
    assert.equal(member.code, 'forbidden_scope');
    const bad = await refusal(call(mcpRpc.startChannelLink, owner, { kind: 'telegram', chat_id: approverChat } as never));
    assert.equal(bad.code, 'invalid_request');
    const badHook = await refusal(call(mcpRpc.startChannelLink, owner, { kind: 'slack', webhook_url: 'https://attacker.example/hook' }));
    assert.equal(badHook.code, 'invalid_request');
    const notLinked = await refusal(call(mcpRpc.unlinkChannel, owner, { kind: 'slack' }));
    assert.equal(notLinked.code, 'not_found');

    const telegram = await call(mcpRpc.startChannelLink, owner, { kind: 'telegram' });
    await h.telegramMessage(approverChat, telegram.command);
    const slack = await call(mcpRpc.startChannelLink, owner, {
      kind: 'slack',
      webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXX',
    });
    assert.equal((await h.slackCommand('C0APPROVE1', slack.code)).json().response_type, 'in_channel');
    const listed = await call(mcpRpc.channelsOverview, owner, {});
    assert.deepEqual(
      listed.data.map((channel) => [channel.kind, channel.chat_id ?? channel.channel_id, channel.webhook_url_set]),
      [
        ['telegram', approverChat, false],
        ['slack', 'C0APPROVE1', true],
      ],
    );
    assert.deepEqual(await call(mcpRpc.unlinkChannel, owner, { kind: 'slack' }), {
      object: 'approval_channel',
      kind: 'slack',
      deleted: true,
    });
    // The REST API sees the same channels.
    const rest = await h.request(org, 'GET', '/api/v1/approvals/channels');
    assert.deepEqual(
      rest.json().data.map((channel: { kind: string }) => channel.kind),
      ['telegram'],
    );
  });

  test('Approve in the console runs the action once; a later Telegram tap and a second decision change nothing and say why', async () => {
    const { leadId, approvalId } = await pendingDelete(org);
    const before = deleteLeadRequests;
    const listed = await call(mcpRpc.listApprovals, person(org, 'read'), { status: 'pending', limit: 10 });
    assert.ok(listed.data.some((item) => item.id === approvalId));
    assert.equal((await call(mcpRpc.getApproval, person(org, 'read'), { id: approvalId })).status, 'pending');

    const decided = await call(mcpRpc.decideApproval, owner, { id: approvalId, decision: 'approve', approver_name: ' Alice\nExample ' });
    assert.equal(decided.acted, true);
    assert.equal(decided.notice, 'Approved: done.');
    assert.equal(decided.approval.status, 'executed');
    assert.equal(decided.approval.resolved_via, 'console');
    assert.equal(decided.approval.resolved_by, `console:Alice Example (${owner.user_id})`);
    assert.equal(deleteLeadRequests, before + 1);
    assert.equal(await leadExists(org, leadId), false);
    // The Telegram message lost its buttons and says who approved, as after a tap.
    const edit = h.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(approvalId));
    assert.match(String(edit?.body.text), new RegExp(`✅ Approved by console:Alice Example \\(${owner.user_id}\\), and done\\.`));

    const tap = await h.telegramTap(approverChat, `approve:${approvalId}`, { callbackId: 'cb-after-console' });
    assert.equal(tap.statusCode, 200);
    const answer = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-after-console');
    assert.equal(answer?.body.text, `Already executed by console:Alice Example (${owner.user_id}); nothing was done this time.`);
    const again = await call(mcpRpc.decideApproval, person(org), { id: approvalId, decision: 'reject', approver_name: 'Bob' });
    assert.equal(again.acted, false);
    assert.match(again.notice, /^Already executed by console:Alice Example/);
    assert.equal(again.approval.status, 'executed');
    assert.equal(deleteLeadRequests, before + 1, 'the action ran once');

    // The agent sees the outcome with its tool, and approval.resolved carries the console as resolver.
    const seen = structured<Approval>(await h.tool(org, 'service_get_approval', { approval_id: approvalId }));
    assert.deepEqual([seen.status, seen.resolved_via], ['executed', 'console']);
    await eventually('approval.resolved from the console', () =>
      events.find(
        (event) => event.type === 'approval.resolved' && event.data.approval_id === approvalId && event.data.resolved_via === 'console',
      ),
    );
  });

  test('a Telegram tap first, then the console: the console says it was already decided', async () => {
    const { leadId, approvalId } = await pendingDelete(org);
    await h.telegramTap(approverChat, `reject:${approvalId}`, { callbackId: 'cb-reject-first' });
    const decided = await call(mcpRpc.decideApproval, owner, { id: approvalId, decision: 'approve', approver_name: 'Alice' });
    assert.equal(decided.acted, false);
    assert.equal(decided.notice, 'Already rejected by telegram:@alice (id 4242); nothing was done this time.');
    assert.equal(decided.approval.resolved_via, 'telegram');
    assert.equal(await leadExists(org, leadId), true);
  });

  test('Reject in the console does nothing to the lead and records who rejected', async () => {
    const { leadId, approvalId } = await pendingDelete(org);
    const before = deleteLeadRequests;
    const decided = await call(mcpRpc.decideApproval, owner, { id: approvalId, decision: 'reject', approver_name: 'Alice Example' });
    assert.deepEqual([decided.acted, decided.notice, decided.approval.status], [true, 'Rejected: nothing was done.', 'rejected']);
    assert.equal(decided.approval.resolved_via, 'console');
    assert.equal(await leadExists(org, leadId), true);
    assert.equal(deleteLeadRequests, before);
    const rejected = await call(mcpRpc.listApprovals, owner, { status: 'rejected', limit: 10 });
    assert.ok(rejected.data.some((item) => item.id === approvalId));
  });

  test('an API key, a member and another organization cannot decide; nothing changes', async () => {
    const { leadId, approvalId } = await pendingDelete(org);
    const apiKey = await refusal(call(mcpRpc.decideApproval, org, { id: approvalId, decision: 'approve', approver_name: 'Agent' }));
    assert.equal(apiKey.code, 'forbidden');
    assert.match(apiKey.message, /an API key never can/);
    const member = await refusal(
      call(mcpRpc.decideApproval, person(org, 'read'), { id: approvalId, decision: 'approve', approver_name: 'M' }),
    );
    assert.equal(member.code, 'forbidden_scope');

    const other = person(await h.identity());
    // One call at a time: both started at once, the second's refusal could come before anything awaited it.
    for (const work of [
      () => call(mcpRpc.decideApproval, other, { id: approvalId, decision: 'approve', approver_name: 'Mallory' }),
      () => call(mcpRpc.getApproval, other, { id: approvalId }),
    ]) {
      assert.equal((await refusal(work())).code, 'not_found');
    }
    assert.deepEqual((await call(mcpRpc.listApprovals, other, { limit: 100 })).data, []);
    assert.deepEqual((await call(mcpRpc.listChannels, other, {})).data, []);
    assert.deepEqual((await call(mcpRpc.channelsOverview, other, {})).data, []);

    const still = await call(mcpRpc.getApproval, owner, { id: approvalId });
    assert.deepEqual([still.status, still.resolved_by], ['pending', null]);
    assert.equal(await leadExists(org, leadId), true);
  });

  test('an expired approval cannot be approved in the console', async (t) => {
    const { leadId, approvalId } = await pendingDelete(org);
    h.advanceClock(25 * 3600_000);
    t.after(() => h.advanceClock(-25 * 3600_000));
    const decided = await call(mcpRpc.decideApproval, owner, { id: approvalId, decision: 'approve', approver_name: 'Alice' });
    assert.equal(decided.acted, false);
    assert.match(decided.notice, /^This approval expired at .*; nothing was done\.$/);
    assert.equal(decided.approval.status, 'expired');
    assert.equal(await leadExists(org, leadId), true);
  });
});
