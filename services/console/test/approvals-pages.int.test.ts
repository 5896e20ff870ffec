import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '@voice/kit';
import { eventually, sampleEventData, sampleEventTypes, startReceiver } from '@voice/kit/testing';
import { subscribableEventTypes } from '@voice/proto';
import { type Agent, type ApprovalsPlatform, connectAgent, startApprovalsPlatform, telegramTap } from './support/approvals.js';
import { allEventsEndpoint, deliveryLogInConsole, deliveryLogThroughApi } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';

const page = '/dashboard/approvals';
const approverChat = '-1001234567001';

describe('the approvals pages, through the gateway', () => {
  let platform: ApprovalsPlatform;
  const agents: Agent[] = [];

  before(async () => {
    platform = await startApprovalsPlatform();
  });
  after(async () => {
    for (const agent of agents) await agent.close();
    await platform.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'admin' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.9');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    const user = await platform.console.deps.prisma.user.findUniqueOrThrow({ where: { id: person.userId } });
    return { browser, userId: person.userId, name: user.name };
  }
  /** An organization with a linked Telegram chat and an agent with its read-write key. */
  async function organization() {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const owner = await signedIn(orgId, 'owner');
    await owner.browser.get(page);
    assert.equal((await owner.browser.post(`${page}/channels/telegram`, { chat_id: approverChat })).statusCode, 303);
    const agent = await connectAgent(platform.url, key);
    agents.push(agent);
    return { orgId, key, owner, agent };
  }
  const leadExists = async (agent: Agent, leadId: string) =>
    (await platform.leads.deps.prisma.lead.count({ where: { id: leadId } })) === 1 &&
    (await agent.call('service_get_lead', { lead_id: leadId }).then(
      () => true,
      () => false,
    ));
  const statusOf = (approvalId: string) =>
    platform.mcp.deps.prisma.approval.findUniqueOrThrow({ where: { id: approvalId } }).then((row) => row.status);

  test('channels: an owner links Telegram, sees Slack is not offered, unlinks with a confirmation; bad ids are refused', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const { browser } = await signedIn(orgId, 'owner');
    const empty = await browser.get(page);
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<a href="\/dashboard\/approvals" aria-current="page">Approvals<\/a>/);
    assert.match(empty.body, /id="approvals-none"/);
    assert.match(empty.body, /id="channels-none"/);
    assert.match(empty.body, /id="telegram-chat"/);
    assert.match(empty.body, /id="slack-unavailable"[^>]*>This platform has no Slack app configured/);
    assert.doesNotMatch(empty.body, /id="slack-channel"/);

    const bad = await browser.post(`${page}/channels/telegram`, { chat_id: '@approvers' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /role="alert">chat_id: must be a numeric Telegram chat id/);
    const slack = await browser.post(`${page}/channels/slack`, { channel_id: 'C0APPROVE1' });
    assert.equal(slack.statusCode, 503);
    assert.match(slack.body, /role="alert">This platform has no Slack app configured/);

    const linked = await browser.post(`${page}/channels/telegram`, { chat_id: approverChat });
    assert.equal(linked.statusCode, 303);
    assert.equal(linked.headers.location, `${page}#channels`);
    const listed = await browser.get(page);
    assert.match(listed.body, new RegExp(`<tr id="channel-telegram">\\s*<td>Telegram</td>\\s*<td>chat ${approverChat}</td>`));
    const confirm = await browser.get(`${page}/channels/telegram/unlink`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /id="unlink-confirm"/);
    assert.equal((await browser.post(`${page}/channels/telegram/unlink`, {})).statusCode, 303);
    assert.equal(await platform.mcp.deps.prisma.approvalChannel.count({ where: { orgId } }), 0);
    const again = await browser.post(`${page}/channels/telegram/unlink`, {});
    assert.equal(again.statusCode, 404);
    assert.match(again.body, /role="alert">/);
    assert.equal((await browser.get(`${page}/channels/slack/unlink`)).statusCode, 404);
  });

  test('an agent asks; the owner sees it listed and approves it on its page once; a later tap and a second decision change nothing', async () => {
    const { owner, agent } = await organization();
    const { leadId, approvalId } = await agent.askToDeleteLead();
    const detailPath = `${page}/${approvalId}`;

    const list = await owner.browser.get(page);
    assert.match(list.body, new RegExp(`<a href="${detailPath}">Delete lead ${leadId} \\(Jane Roe`));
    assert.match(list.body, /<td>pending<\/td>/);
    assert.match((await owner.browser.get(`${page}?status=pending`)).body, new RegExp(detailPath));
    assert.doesNotMatch((await owner.browser.get(`${page}?status=executed`)).body, new RegExp(detailPath));
    assert.match((await owner.browser.get(`${page}?status=&tool=service_delete_lead`)).body, new RegExp(detailPath));
    const otherTool = await owner.browser.get(`${page}?tool=service_send_invoice`);
    assert.match(otherTool.body, /id="approvals-none">No approvals match these filters\./);

    const detail = await owner.browser.get(detailPath);
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, /<code>service_delete_lead<\/code>/);
    assert.match(detail.body, new RegExp(`&quot;lead_id&quot;: &quot;${leadId}&quot;`));
    assert.match(detail.body, /<li>Telegram: sent<\/li>/);
    assert.match(detail.body, /id="approval-approve"/);
    assert.match(detail.body, /id="approval-reject"/);

    const withoutToken = await owner.browser.post(`${detailPath}/decide`, { decision: 'approve' }, { csrf: false });
    assert.equal(withoutToken.statusCode, 403);
    assert.equal(await statusOf(approvalId), 'pending');

    const approved = await owner.browser.post(`${detailPath}/decide`, { decision: 'approve' });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.match(approved.body, /role="status">Approved: done\.</);
    assert.match(approved.body, /id="approval-status-value">executed</);
    assert.match(approved.body, new RegExp(`id="approval-resolved">console:${owner.name} \\(${owner.userId}\\), in the console<`));
    assert.doesNotMatch(approved.body, /id="approval-approve"/);
    assert.equal(await leadExists(agent, leadId), false);
    const edit = platform.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(approvalId));
    assert.match(String(edit?.body.text), /✅ Approved by console:/);

    const second = await owner.browser.post(`${detailPath}/decide`, { decision: 'reject' });
    assert.equal(second.statusCode, 409);
    assert.match(
      second.body,
      new RegExp(`role="alert">Already executed by console:${owner.name} \\(${owner.userId}\\); nothing was done this time\\.<`),
    );
    await telegramTap(platform.url, approverChat, `approve:${approvalId}`, 'cb-console-after');
    const answer = platform.telegram.callsOf('answerCallbackQuery').find((call) => call.body.callback_query_id === 'cb-console-after');
    assert.match(String(answer?.body.text), /^Already executed by console:/);
    const seen = await agent.call('service_get_approval', { approval_id: approvalId });
    assert.deepEqual([seen.status, seen.resolved_via], ['executed', 'console']);
  });

  test('an admin rejects; a member sees the approval without buttons and a hand-made POST is refused', async () => {
    const { orgId, agent } = await organization();
    const { leadId, approvalId } = await agent.askToDeleteLead();
    const detailPath = `${page}/${approvalId}`;

    const member = await signedIn(orgId, 'member');
    const seen = await member.browser.get(detailPath);
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /id="approval-summary"/);
    assert.doesNotMatch(seen.body, /id="approval-approve"|id="approval-reject"/);
    const listed = await member.browser.get(page);
    assert.doesNotMatch(listed.body, /id="telegram-chat"|id="unlink-telegram"/);
    for (const [url, fields] of [
      [`${detailPath}/decide`, { decision: 'approve' }],
      [`${page}/channels/telegram`, { chat_id: '-100999' }],
      [`${page}/channels/telegram/unlink`, {}],
    ] as const) {
      const refused = await member.browser.post(url, fields);
      assert.equal(refused.statusCode, 403, url);
    }
    assert.equal((await member.browser.get(`${page}/channels/telegram/unlink`)).statusCode, 403);
    assert.equal(await statusOf(approvalId), 'pending');

    const admin = await signedIn(orgId, 'admin');
    await admin.browser.get(detailPath);
    const rejected = await admin.browser.post(`${detailPath}/decide`, { decision: 'reject' });
    assert.equal(rejected.statusCode, 200);
    assert.match(rejected.body, /role="status">Rejected: nothing was done\.</);
    assert.equal(await statusOf(approvalId), 'rejected');
    assert.equal(await leadExists(agent, leadId), true);
    assert.match((await member.browser.get(`${page}?status=rejected`)).body, new RegExp(detailPath));
  });

  test("another organization's approval is not found, by URL tampering too; bad filters and ids are 400", async () => {
    const { agent } = await organization();
    const { leadId, approvalId } = await agent.askToDeleteLead();
    const { orgId: otherOrg } = await platform.org({ plan: 'pro' });
    const stranger = await signedIn(otherOrg, 'owner');
    assert.equal((await stranger.browser.get(`${page}/${approvalId}`)).statusCode, 404);
    await stranger.browser.get(page);
    const decided = await stranger.browser.post(`${page}/${approvalId}/decide`, { decision: 'approve' });
    assert.equal(decided.statusCode, 404);
    assert.doesNotMatch((await stranger.browser.get(page)).body, new RegExp(approvalId));
    assert.equal(await statusOf(approvalId), 'pending');
    assert.equal(await leadExists(agent, leadId), true);

    assert.equal((await stranger.browser.get(`${page}?status=sleeping`)).statusCode, 400);
    assert.equal((await stranger.browser.get(`${page}?tool=service_delete_everything`)).statusCode, 400);
    assert.equal((await stranger.browser.get(`${page}?cursor=not-a-cursor`)).statusCode, 400);
    assert.equal((await stranger.browser.get(`${page}/not-an-approval`)).statusCode, 400);
    assert.equal((await stranger.browser.get(`${page}/${newId('approval')}`)).statusCode, 404);
  });

  test('the list pages 25 at a time, newest first, each approval once, keeping the filters', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const { browser } = await signedIn(orgId, 'member');
    const base = Date.now() - 3600_000;
    const ids = Array.from({ length: 30 }, () => newId('approval'));
    await platform.mcp.deps.prisma.approval.createMany({
      data: ids.map((id, index) => ({
        id,
        orgId,
        tool: 'service_delete_lead',
        arguments: { lead_id: newId('lead') },
        argumentsDigest: 'f'.repeat(64),
        summary: `Delete lead number ${index}`,
        status: 'rejected' as const,
        requestedBy: 'key_test',
        requester: {},
        expiresAt: new Date(base + 86_400_000),
        createdAt: new Date(base + index * 1000),
      })),
    });
    const seen: string[] = [];
    let url: string | undefined = `${page}?status=rejected&tool=service_delete_lead`;
    let pages = 0;
    while (url) {
      const response = await browser.get(url);
      assert.equal(response.statusCode, 200);
      seen.push(...[...response.body.matchAll(/<a href="\/dashboard\/approvals\/(apr_[0-9A-Za-z]+)">/g)].map((match) => match[1] ?? ''));
      const next = /id="approvals-next" href="([^"]+)"/.exec(response.body)?.[1]?.replaceAll('&amp;', '&');
      if (next) assert.match(next, /status=rejected&tool=service_delete_lead&cursor=/);
      url = next;
      pages += 1;
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen, [...ids].reverse());
  });

  test('every event type the platform publishes reaches an all-events endpoint, and the delivery log reads back through the API and the console', async (t) => {
    assert.deepEqual([...sampleEventTypes].sort(), [...subscribableEventTypes].sort(), 'a sample of every type webhooks deliver');
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const { orgId, key, owner, agent } = await organization();
    const endpoint = await allEventsEndpoint(platform, key, receiver.url);
    // Each type as its service's outbox publishes it, ids from the one generator; then the approval events
    // of a real approval (with the lead's own events), decided on the console page, newest in the log.
    for (const type of sampleEventTypes) await platform.mcp.deps.bus.publish(type, orgId, sampleEventData(type));
    const { approvalId } = await agent.askToDeleteLead();
    assert.equal((await owner.browser.post(`${page}/${approvalId}/decide`, { decision: 'approve' })).statusCode, 200);
    type Sent = { id: string; type: string; data: { approval_id?: string } };
    const sent = () => receiver.requests.map((request) => JSON.parse(request.body) as Sent);
    const ofThisApproval = () => sent().filter((event) => event.data.approval_id === approvalId);
    await receiver.waitFor(
      () => subscribableEventTypes.every((type) => sent().some((event) => event.type === type)) && ofThisApproval().length === 2,
      120_000,
    );
    const approvalEvents = ofThisApproval();
    assert.deepEqual(approvalEvents.map((event) => event.type).sort(), ['approval.requested', 'approval.resolved']);

    const deliveries = await eventually('every event is in the log', async () => {
      const log = await deliveryLogThroughApi(platform, key, endpoint.id);
      return subscribableEventTypes.every((type) => log.some((delivery) => delivery.event_type === type)) ? log : undefined;
    });
    for (const event of approvalEvents)
      assert.ok(
        deliveries.some((delivery) => delivery.event_id === event.id),
        event.id,
      );
    const requested = deliveries.find(
      (delivery) => delivery.event_id === approvalEvents.find((event) => event.type === 'approval.requested')?.id,
    );
    const replay = await platform.gateway.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${endpoint.id}/deliveries/${requested?.id}/replay`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(replay.statusCode, 202, replay.body);

    const consolePage = await deliveryLogInConsole(owner.browser, endpoint.id);
    assert.match(consolePage, /<td>approval\.requested<\/td>/);
    assert.match(consolePage, /<td>approval\.resolved<\/td>/);
  });
});
