import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '@voice/kit/testing';
import { type Approval, type EventEnvelope, type Identity, type Invoice, leadsRpc, type PendingApproval } from '@voice/proto';
import { sweepExpired } from '../src/domain/approvals.js';
import { draftInvoiceFor, errorText, type McpHarness, startMcpHarness, structured } from './support/harness.js';

const approverChat = '-1001234567890';
const strangerChat = '-1009999999999';
const slackChannel = 'C0APPROVALS';

describe('approvals: tap-to-approve in Telegram and Slack', () => {
  let h: McpHarness;
  let org: Identity;
  let sendInvoiceRequests = 0;
  const events: EventEnvelope<'approval.requested' | 'approval.resolved'>[] = [];

  const draftInvoice = (identity: Identity) => draftInvoiceFor(h, identity);

  async function approval(identity: Identity, id: string): Promise<Approval> {
    return structured<Approval>(await h.tool(identity, 'service_get_approval', { approval_id: id }));
  }

  before(async () => {
    h = await startMcpHarness();
    org = await h.identity();
    // Every request to the send-invoice operation, whoever serves it: a plain (non-queue) subscription sees each one.
    h.deps.bus.connection.subscribe(h.deps.bus.subject('svc.leads.invoices.send'), {
      callback: () => {
        sendInvoiceRequests += 1;
      },
    });
    await h.deps.bus.consume({ durable: 'approval-events-test', types: ['approval.requested', 'approval.resolved'] }, async (event) => {
      events.push(event);
    });
  });
  after(async () => {
    await h.close();
  });

  test('without a linked channel, an approval tool still asks: pending in the console, requested, nothing done', async () => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.equal(pending.status, 'pending_approval');
    assert.deepEqual(pending.sent_to, []);
    assert.equal(pending.console_url, `${h.deps.env.PUBLIC_BASE_URL}/dashboard/approvals/${pending.approval_id}`);
    assert.match(
      pending.summary,
      new RegExp(`^Nothing was done yet\\. Once a person approves in the console \\(${pending.console_url}\\): `),
    );
    const stored = await approval(org, pending.approval_id);
    assert.deepEqual([stored.status, stored.deliveries], ['pending', []]);
    assert.equal(h.telegram.callsOf('sendMessage').length, 0);
    const requested = await eventually('approval.requested is published', () =>
      events.find((event) => event.type === 'approval.requested' && event.data.approval_id === pending.approval_id),
    );
    assert.match(requested.id, /^evt_[0-9A-Za-z]{8,40}$/);
    assert.equal((await h.deps.bus.call(leadsRpc.getInvoice, org, { id: invoice.id })).status, 'draft');
    // The same frozen action asked again is the waiting approval, not a second one.
    const again = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.equal(again.approval_id, pending.approval_id);
  });

  test('channels: a read key cannot link one; a read-write key links Telegram and sees it listed', async () => {
    const readOnly = await h.request({ ...org, scope: 'read' }, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: approverChat });
    assert.equal(readOnly.statusCode, 403);
    assert.equal(readOnly.json().error.code, 'forbidden_scope');
    const bad = await h.request(org, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: 'not a chat' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_request');
    const linked = await h.request(org, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: Number(approverChat) });
    assert.equal(linked.statusCode, 200);
    assert.equal(linked.json().chat_id, approverChat);
    const list = await h.request({ ...org, scope: 'read' }, 'GET', '/api/v1/approvals/channels');
    assert.deepEqual(
      list.json().data.map((channel: { kind: string; chat_id: string }) => [channel.kind, channel.chat_id]),
      [['telegram', approverChat]],
    );
  });

  test('service_send_invoice returns pending; Approve sends the invoice exactly once; a second tap does nothing', async () => {
    const invoice = await draftInvoice(org);
    const requestsBefore = sendInvoiceRequests;
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.equal(pending.status, 'pending_approval');
    assert.match(pending.approval_id, /^apr_/);
    assert.match(pending.summary, /^Nothing was done yet/);
    assert.match(pending.summary, /\$99\.00/);
    assert.deepEqual(pending.sent_to, ['telegram']);
    assert.ok(Date.parse(pending.expires_at) > Date.now() + 23 * 3600_000);
    // Nothing was sent yet.
    const draft = structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id }));
    assert.equal(draft.status, 'draft');
    assert.equal(sendInvoiceRequests, requestsBefore);

    // The fake Telegram received the request, with Approve / Reject buttons carrying only the approval id.
    const message = h.telegram.callsOf('sendMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.ok(message, 'sendMessage with the approval');
    assert.equal(String(message.body.chat_id), approverChat);
    assert.match(String(message.body.text), new RegExp(invoice.id));
    const keyboard = (message.body.reply_markup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> })
      .inline_keyboard;
    assert.deepEqual(keyboard, [
      [
        { text: 'Approve', callback_data: `approve:${pending.approval_id}` },
        { text: 'Reject', callback_data: `reject:${pending.approval_id}` },
      ],
    ]);
    assert.equal((await approval(org, pending.approval_id)).status, 'pending');

    const tap = await h.telegramTap(approverChat, `approve:${pending.approval_id}`, { callbackId: 'cb-approve-1' });
    assert.equal(tap.statusCode, 200);
    const answer = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-approve-1');
    assert.equal(answer?.body.text, 'Approved: done.');
    const sent = structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id }));
    assert.equal(sent.status, 'sent');
    assert.equal(sendInvoiceRequests, requestsBefore + 1);
    const executed = await approval(org, pending.approval_id);
    assert.equal(executed.status, 'executed');
    assert.equal(executed.resolved_by, 'telegram:@alice (id 4242)');
    assert.equal(executed.resolved_via, 'telegram');
    assert.equal(executed.result?.status, 'sent');
    assert.deepEqual(executed.arguments, { invoice_id: invoice.id });
    // The message now shows the outcome and has no buttons.
    const edit = h.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.match(String(edit?.body.text), /Approved by telegram:@alice \(id 4242\), and done/);
    assert.deepEqual(edit?.body.reply_markup, { inline_keyboard: [] });

    // A second tap, and the same callback replayed: nothing more happens, and the person is told why.
    await h.telegramTap(approverChat, `approve:${pending.approval_id}`, { callbackId: 'cb-approve-2' });
    await h.telegramTap(approverChat, `approve:${pending.approval_id}`, { callbackId: 'cb-approve-1' });
    const second = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-approve-2');
    assert.match(String(second?.body.text), /^Already executed by telegram:@alice \(id 4242\); nothing was done this time\.$/);
    assert.equal(second?.body.show_alert, true);
    assert.equal(sendInvoiceRequests, requestsBefore + 1);
    const after = structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id }));
    assert.equal(after.sent_at, sent.sent_at);

    // The REST view agrees, and both events were published.
    const rest = await h.request({ ...org, scope: 'read' }, 'GET', `/api/v1/approvals/${pending.approval_id}`);
    assert.equal(rest.statusCode, 200);
    assert.equal(rest.json().status, 'executed');
    await eventually('approval events', () =>
      events.filter((event) => event.data.approval_id === pending.approval_id).length === 2 ? true : undefined,
    );
    const types = events.filter((event) => event.data.approval_id === pending.approval_id).map((event) => [event.type, event.data.status]);
    assert.deepEqual(types, [
      ['approval.requested', 'pending'],
      ['approval.resolved', 'executed'],
    ]);
  });

  test('asking again for the same action returns the waiting approval without a second message; a sent invoice is a conflict', async () => {
    const invoice = await draftInvoice(org);
    const first = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    const messagesBefore = h.telegram.callsOf('sendMessage').length;
    const again = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.equal(again.approval_id, first.approval_id);
    assert.equal(again.expires_at, first.expires_at);
    assert.match(again.summary, /nothing was sent again/);
    assert.deepEqual(again.sent_to, ['telegram']);
    assert.equal(h.telegram.callsOf('sendMessage').length, messagesBefore);
    await h.telegramTap(approverChat, `approve:${first.approval_id}`);
    assert.equal((await approval(org, first.approval_id)).status, 'executed');
    const text = errorText(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.match(
      text,
      /^conflict: Invoice inv_\w+ is sent; only a draft invoice can be sent \(argument invoice_id\); the record is not in a state that allows this/,
    );
  });

  test('two simultaneous Approve taps run the action once', async () => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    const requestsBefore = sendInvoiceRequests;
    await Promise.all([
      h.telegramTap(approverChat, `approve:${pending.approval_id}`),
      h.telegramTap(approverChat, `approve:${pending.approval_id}`),
      h.telegramTap(approverChat, `approve:${pending.approval_id}`),
    ]);
    assert.equal(sendInvoiceRequests, requestsBefore + 1);
    assert.equal((await approval(org, pending.approval_id)).status, 'executed');
  });

  test('an approval whose requesting key was revoked meanwhile does nothing when approved', async () => {
    // A second key of the same organization asks; it is rotated (routine: its successor stands for it), then
    // the successor is revoked before anyone taps.
    const second = (await h.platform.gateway.admin({
      kind: 'key.create',
      orgId: org.org_id,
      scope: 'read-write',
      monthlyQuota: 1_000,
    })) as {
      id: string;
    };
    const asker: Identity = { ...org, key_id: second.id };
    const invoice = await draftInvoice(asker);
    const pending = structured<PendingApproval>(await h.tool(asker, 'service_send_invoice', { invoice_id: invoice.id }));
    const rotated = (await h.platform.gateway.admin({ kind: 'key.rotate', keyId: second.id, graceSeconds: 0 })) as { id: string };
    await h.platform.gateway.admin({ kind: 'key.revoke', keyId: rotated.id });
    const requestsBefore = sendInvoiceRequests;
    await h.telegramTap(approverChat, `approve:${pending.approval_id}`);
    const failed = await eventually('the approval fails', async () => {
      const current = await approval(org, pending.approval_id);
      return current.status === 'failed' ? current : undefined;
    });
    assert.equal(failed.error?.code, 'revoked');
    assert.equal(failed.result, null);
    assert.equal(sendInvoiceRequests, requestsBefore, 'the invoice was never sent');
    assert.equal(structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id })).status, 'draft');
  });

  test('Reject does nothing to the invoice; a tap from a chat not linked to the organization does nothing and says why', async () => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    await h.telegramTap(strangerChat, `approve:${pending.approval_id}`, { callbackId: 'cb-stranger' });
    const stranger = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-stranger');
    assert.equal(stranger?.body.text, 'This chat is not linked to the organization that asked for this approval; nothing was done.');
    assert.equal((await approval(org, pending.approval_id)).status, 'pending');

    await h.telegramTap(approverChat, `reject:${pending.approval_id}`, { callbackId: 'cb-reject' });
    const reject = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-reject');
    assert.equal(reject?.body.text, 'Rejected: nothing was done.');
    const rejected = await approval(org, pending.approval_id);
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.result, null);
    assert.equal(structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id })).status, 'draft');
    // Approve after Reject does nothing either.
    await h.telegramTap(approverChat, `approve:${pending.approval_id}`, { callbackId: 'cb-late' });
    const late = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-late');
    assert.match(String(late?.body.text), /^Already rejected by telegram:@alice/);
    const filtered = structured<{ data: Approval[] }>(await h.tool(org, 'service_list_approvals', { status: 'rejected' }));
    assert.deepEqual(
      filtered.data.map((item) => item.id),
      [pending.approval_id],
    );
  });

  test('a tap after expiry does nothing and says so; the approval shows expired', async (t) => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    h.advanceClock(25 * 3600_000);
    t.after(async () => {
      h.advanceClock(-25 * 3600_000);
    });
    assert.equal((await approval(org, pending.approval_id)).status, 'expired');
    await h.telegramTap(approverChat, `approve:${pending.approval_id}`, { callbackId: 'cb-expired' });
    const answer = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-expired');
    assert.match(String(answer?.body.text), /^This approval expired at .*; nothing was done\.$/);
    assert.equal(structured<Invoice>(await h.tool(org, 'service_get_invoice', { invoice_id: invoice.id })).status, 'draft');
    const expired = await h.request(org, 'GET', '/api/v1/approvals?status=expired');
    assert.ok(expired.json().data.some((item: Approval) => item.id === pending.approval_id));
  });

  test('the expiry sweep marks waiting approvals expired, edits their messages and publishes approval.resolved', async (t) => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    h.advanceClock(25 * 3600_000);
    t.after(async () => {
      h.advanceClock(-25 * 3600_000);
    });
    assert.ok((await sweepExpired(h.deps)) >= 1);
    const edit = h.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.match(String(edit?.body.text), /Expired before anyone approved it\. Nothing was done\./);
    await eventually('approval.resolved for the expired approval', () =>
      events.find(
        (event) => event.type === 'approval.resolved' && event.data.approval_id === pending.approval_id && event.data.status === 'expired',
      ),
    );
    assert.equal(await sweepExpired(h.deps), 0);
    assert.equal((await approval(org, pending.approval_id)).status, 'expired');
  });

  test('an execution interrupted by a crash does not stay approved forever: the sweep marks it failed, saying it may have run', async () => {
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    // What a process that died right after claiming the approval leaves behind.
    await h.deps.prisma.approval.update({
      where: { id: pending.approval_id },
      data: {
        status: 'approved',
        resolvedAt: new Date(Date.now() - 10 * 60_000),
        resolvedBy: 'telegram:@alice (id 4242)',
        resolvedVia: 'telegram',
      },
    });
    assert.equal(await sweepExpired(h.deps), 1);
    const failed = await approval(org, pending.approval_id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'unavailable');
    assert.match(failed.error?.message ?? '', /may or may not have run/);
  });

  test('the Telegram webhook refuses updates without the secret token; unknown buttons do nothing', async () => {
    const wrong = await h.telegramTap(approverChat, 'approve:apr_00000000000000000000', { secret: 'guess' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error.code, 'unauthenticated');
    await h.telegramTap(approverChat, 'approve:apr_00000000000000000000', { callbackId: 'cb-unknown' });
    const unknown = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-unknown');
    assert.equal(unknown?.body.text, 'Unknown approval; nothing was done.');
    await h.telegramTap(approverChat, 'drop table', { callbackId: 'cb-junk' });
    const junk = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-junk');
    assert.equal(junk?.body.text, 'Unknown button; nothing was done.');
  });

  test("another organization's ids are not_found, for tools and REST alike", async () => {
    const other = await h.identity();
    const invoice = await draftInvoice(org);
    const pending = structured<PendingApproval>(await h.tool(org, 'service_send_invoice', { invoice_id: invoice.id }));
    await h.request(other, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: strangerChat });
    assert.match(errorText(await h.tool(other, 'service_send_invoice', { invoice_id: invoice.id })), /^not_found: /);
    assert.match(errorText(await h.tool(other, 'service_get_approval', { approval_id: pending.approval_id })), /^not_found: /);
    const rest = await h.request(other, 'GET', `/api/v1/approvals/${pending.approval_id}`);
    assert.equal(rest.statusCode, 404);
    assert.equal(rest.json().error.code, 'not_found');
    // The other organization's chat cannot approve it either.
    await h.telegramTap(strangerChat, `approve:${pending.approval_id}`, { callbackId: 'cb-other-org' });
    const answer = h.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-other-org');
    assert.match(String(answer?.body.text), /not linked/);
    assert.equal((await approval(org, pending.approval_id)).status, 'pending');
  });

  test('remove_dnc and delete_lead through Slack: signed taps act once; a bad signature is refused', async () => {
    const team = await h.identity();
    const linked = await h.request(team, 'PUT', '/api/v1/approvals/channels/slack', { channel_id: slackChannel });
    assert.equal(linked.statusCode, 200);
    structured(await h.tool(team, 'service_add_dnc', { phone: '+14155550177', channel: 'all', reason: 'asked to stop' }));
    const pending = structured<PendingApproval>(await h.tool(team, 'service_remove_dnc', { phone: '+14155550177' }));
    assert.deepEqual(pending.sent_to, ['slack']);
    const post = h.slack.callsOf('/api/chat.postMessage').find((call) => String(call.body.text).includes(pending.approval_id));
    assert.equal(post?.body.channel, slackChannel);
    assert.equal(post?.headers.authorization, 'Bearer xoxb-test-token');
    const buttons = JSON.stringify(post?.body.blocks);
    assert.match(buttons, /"action_id":"approval.approve"/);
    assert.match(buttons, new RegExp(`"value":"${pending.approval_id}"`));

    const forged = await h.slackTap(slackChannel, 'approval.approve', pending.approval_id, { signingSecret: 'not-the-secret' });
    assert.equal(forged.statusCode, 401);
    assert.equal((await approval(team, pending.approval_id)).status, 'pending');

    const responsesBefore = h.slack.callsOf(new URL(h.slack.responseUrl).pathname).length;
    const tap = await h.slackTap(slackChannel, 'approval.approve', pending.approval_id);
    assert.equal(tap.statusCode, 200);
    const done = await eventually('the Slack-approved removal', async () => {
      const current = await approval(team, pending.approval_id);
      return current.status === 'executed' ? current : undefined;
    });
    assert.equal(done.resolved_by, 'slack:@bob (id U0APPROVER)');
    const check = structured<{ listed: boolean }>(await h.tool(team, 'service_check_dnc', { phone: '+14155550177' }));
    assert.equal(check.listed, false);
    const replaced = await eventually(
      'the response_url update',
      () => h.slack.callsOf(new URL(h.slack.responseUrl).pathname).slice(responsesBefore)[0],
    );
    assert.equal(replaced.body.replace_original, true);
    assert.match(String(replaced.body.text), /Approved by slack:@bob .*and done/);

    // A second tap: the person alone is told, the message is left as it is.
    await h.slackTap(slackChannel, 'approval.approve', pending.approval_id);
    const again = await eventually(
      'the second response',
      () => h.slack.callsOf(new URL(h.slack.responseUrl).pathname).slice(responsesBefore + 1)[0],
    );
    assert.equal(again.body.response_type, 'ephemeral');
    assert.match(String(again.body.text), /^Already executed/);

    // delete_lead: the lead is gone once approved.
    const lead = structured<{ id: string }>(await h.tool(team, 'service_create_lead', { name: 'To Forget', email: 'forget@example.com' }));
    const deletion = structured<PendingApproval>(await h.tool(team, 'service_delete_lead', { lead_id: lead.id }));
    assert.match(deletion.summary, /Delete lead .*To Forget/);
    await h.slackTap(slackChannel, 'approval.approve', deletion.approval_id);
    await eventually('lead deletion', async () => ((await approval(team, deletion.approval_id)).status === 'executed' ? true : undefined));
    assert.match(errorText(await h.tool(team, 'service_get_lead', { lead_id: lead.id })), /^not_found: /);
  });

  test('deliver_project through a Slack incoming webhook: delivered once on Approve', async () => {
    const studio = await h.identity();
    const linked = await h.request(studio, 'PUT', '/api/v1/approvals/channels/slack', {
      channel_id: 'C0STUDIO01',
      webhook_url: 'https://hooks.slack.com/services/T0/B0/x',
    });
    assert.equal(linked.json().webhook_url_set, true);
    // The stored URL is the organization's; point it at the fake, as Slack's own host is not reachable from tests.
    await h.deps.prisma.approvalChannel.update({
      where: { orgId_kind: { orgId: studio.org_id, kind: 'slack' } },
      data: { webhookUrl: h.slack.webhookUrl },
    });
    const lead = structured<{ id: string }>(await h.tool(studio, 'service_create_lead', { name: 'Client Co' }));
    const project = await h.platform.leads.deps.bus.call(leadsRpc.createProject, studio, {
      lead_id: lead.id,
      name: 'Brand kit',
      status: 'ready',
    });
    const pending = structured<PendingApproval>(await h.tool(studio, 'service_deliver_project', { project_id: project.id }));
    const posted = h.slack
      .callsOf(new URL(h.slack.webhookUrl).pathname)
      .find((call) => String(call.body.text).includes(pending.approval_id));
    assert.ok(posted, 'posted through the incoming webhook');
    assert.equal(posted.headers.authorization, undefined);
    await h.slackTap('C0STUDIO01', 'approval.approve', pending.approval_id);
    await eventually('delivery', async () => ((await approval(studio, pending.approval_id)).status === 'executed' ? true : undefined));
    const delivered = structured<{ status: string; delivered_at: string }>(
      await h.tool(studio, 'service_get_project', { project_id: project.id }),
    );
    assert.equal(delivered.status, 'delivered');
    assert.match(
      errorText(await h.tool(studio, 'service_deliver_project', { project_id: project.id })),
      /^conflict: Project prj_\w+ was already delivered/,
    );
  });

  test('an approval that no linked chat takes still waits in the console, its failed delivery recorded', async () => {
    const lonely = await h.identity();
    h.telegram.unreachableChats.add('-100555');
    await h.request(lonely, 'PUT', '/api/v1/approvals/channels/telegram', { chat_id: '-100555' });
    const invoice = await draftInvoice(lonely);
    const pending = structured<PendingApproval>(await h.tool(lonely, 'service_send_invoice', { invoice_id: invoice.id }));
    assert.deepEqual([pending.status, pending.sent_to], ['pending_approval', []]);
    const stored = await approval(lonely, pending.approval_id);
    assert.equal(stored.status, 'pending');
    assert.equal(stored.deliveries[0]?.status, 'failed');
    assert.match(String(stored.deliveries[0]?.error), /Telegram sendMessage failed: Forbidden/);
    assert.equal((await h.deps.bus.call(leadsRpc.getInvoice, lonely, { id: invoice.id })).status, 'draft');
  });
});
