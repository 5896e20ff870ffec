// Approvals on a platform with neither Telegram nor Slack configured (the default, and `npm start`): the
// console is the channel that is always there. An agent's destructive action waits for a person on its
// console page, the navigation counts what waits, and the approval's events reach the webhook log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { eventually, type Receiver, startReceiver } from '@voice/kit/testing';
import type { PendingApproval } from '@voice/proto';
import { type Agent, connectAgent } from './support/approvals.js';
import { allEventsEndpoint, deliveryLogInConsole, deliveryLogThroughApi } from './support/delivery-log.js';
import { Browser, invitePerson } from './support/harness.js';

const page = '/dashboard/approvals';
// The count beside Approvals in the navigation (views/layout.ts).
const waitingCount = /<span class="count">(\d+)<span class="visually-hidden"> waiting<\/span><\/span>/;

describe('approvals with no messaging app configured, through the gateway', () => {
  let platform: Platform<'leads' | 'mcp' | 'webhooks' | 'console'>;
  let receiver: Receiver;
  const agents: Agent[] = [];

  before(async () => {
    receiver = await startReceiver();
    platform = await startPlatform({ services: ['telephony', 'leads', 'mcp', 'webhooks', 'console'] });
  });
  after(async () => {
    for (const agent of agents) await agent.close();
    await platform.close();
    await receiver.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'member') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    const browser = new Browser(platform.gateway.app, '198.51.100.10');
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303);
    return browser;
  }
  async function organization() {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const agent = await connectAgent(platform.url, key);
    agents.push(agent);
    return { orgId, key, agent, owner: await signedIn(orgId, 'owner') };
  }

  test('service_delete_lead answers pending_approval; a person approves on the console page; the lead is gone; the webhook log holds the approval events', async () => {
    const { orgId, key, agent, owner } = await organization();
    const endpoint = await allEventsEndpoint(platform, key, receiver.url);
    const before = await owner.get(page);
    assert.equal(before.statusCode, 200);
    assert.doesNotMatch(before.body, waitingCount);
    assert.match(before.body, /id="channels-none"/);
    assert.match(before.body, /id="telegram-unavailable"/);
    assert.match(before.body, /id="slack-unavailable"/);

    const lead = await agent.call('service_create_lead', { name: 'Jane Roe', phone: '+14155550142' });
    const pending = (await agent.call('service_delete_lead', { lead_id: lead.id })) as PendingApproval;
    assert.equal(pending.status, 'pending_approval');
    assert.deepEqual(pending.sent_to, []);
    const detailPath = `${page}/${pending.approval_id}`;
    assert.equal(pending.console_url, `${platform.url}${detailPath}`);
    assert.match(pending.summary, /^Nothing was done yet\. Once a person approves in the console/);

    // Every page of the organization counts it in the navigation; the list and its page show it.
    assert.equal(waitingCount.exec((await owner.get('/dashboard')).body)?.[1], '1');
    const list = await owner.get(page);
    assert.equal(waitingCount.exec(list.body)?.[1], '1');
    assert.match(list.body, new RegExp(`<a href="${detailPath}">Delete lead ${lead.id}`));
    const member = await signedIn(orgId, 'member');
    assert.equal(waitingCount.exec((await member.get('/dashboard/members')).body)?.[1], '1');
    const detail = await owner.get(detailPath);
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, new RegExp(`&quot;lead_id&quot;: &quot;${lead.id}&quot;`));
    assert.match(detail.body, /id="approval-no-chat"/);
    assert.match(detail.body, /id="approval-approve"/);
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { id: String(lead.id) } }), 1, 'nothing done before the decision');

    const approved = await owner.post(`${detailPath}/decide`, { decision: 'approve' });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.match(approved.body, /role="status">Approved: done\.</);
    assert.match(approved.body, /id="approval-status-value">executed</);
    assert.doesNotMatch(approved.body, waitingCount, 'nothing waits any more');
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { id: String(lead.id) } }), 0);
    const outcome = await agent.call('service_get_approval', { approval_id: pending.approval_id });
    assert.deepEqual([outcome.status, outcome.resolved_via], ['executed', 'console']);
    // Once only: a second decision changes nothing.
    assert.equal((await owner.post(`${detailPath}/decide`, { decision: 'reject' })).statusCode, 409);

    const log = await eventually('the approval events are in the delivery log', async () => {
      const deliveries = await deliveryLogThroughApi(platform, key, endpoint.id);
      const types = deliveries.map((delivery) => delivery.event_type);
      return types.includes('approval.requested') && types.includes('approval.resolved') && types.includes('lead.deleted')
        ? deliveries
        : undefined;
    });
    assert.equal(log.filter((delivery) => delivery.event_type.startsWith('approval.')).length, 2);
    const consolePage = await deliveryLogInConsole(owner, endpoint.id);
    assert.match(consolePage, /<td>approval\.requested<\/td>/);
    assert.match(consolePage, /<td>approval\.resolved<\/td>/);
  });

  test('without a chat nothing else loosens: the same action asked again is the waiting approval, a rejection does nothing, and a decision is made once', async () => {
    const { agent, owner } = await organization();
    const lead = await agent.call('service_create_lead', { name: 'John Doe', phone: '+14155550143' });
    const first = (await agent.call('service_delete_lead', { lead_id: lead.id })) as PendingApproval;
    const again = (await agent.call('service_delete_lead', { lead_id: lead.id })) as PendingApproval;
    assert.equal(again.approval_id, first.approval_id);
    assert.match(again.summary, /nothing was sent again/);
    assert.equal(waitingCount.exec((await owner.get(page)).body)?.[1], '1');

    const rejected = await owner.post(`${page}/${first.approval_id}/decide`, { decision: 'reject' });
    assert.equal(rejected.statusCode, 200, rejected.body);
    assert.match(rejected.body, /role="status">Rejected: nothing was done\.</);
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { id: String(lead.id) } }), 1);
    assert.equal((await owner.post(`${page}/${first.approval_id}/decide`, { decision: 'approve' })).statusCode, 409);
    assert.equal(await platform.leads.deps.prisma.lead.count({ where: { id: String(lead.id) } }), 1);
  });
});
