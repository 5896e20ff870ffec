// Approval requests by e-mail: when an agent's destructive action waits for a person, each owner and admin of
// its organization (the console's people, asked over NATS) gets an e-mail with the approval's console page.
// The SMTP server is real (`smtp-server`, in the test's process); the mcp service sends to it over TCP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Identity, PendingApproval } from '@voice/proto';
import { invitePerson } from '../../console/test/support/harness.js';
import { linkIn, type ReceivedMail, startMailServer, type TestMailServer } from '../../console/test/support/smtp.js';
import { listenOn, type McpHarness, sdkClient, startMcpHarness, structured } from './support/harness.js';

describe('approval requests are e-mailed to the organization’s owners and admins', () => {
  let smtp: TestMailServer;
  let h: McpHarness;
  let org: Identity;
  let people: Record<'owner' | 'admin' | 'member' | 'otherOwner' | 'otherAdmin', string>;
  let adminUserId: string;

  /** An agent's lead and its delete request: the delete waits for approval. */
  async function askToDelete(identity: Identity): Promise<PendingApproval & { leadId: string }> {
    const lead = structured<{ id: string }>(await h.tool(identity, 'service_create_lead', { name: 'Jane Roe', phone: '+14155550123' }));
    const pending = structured<PendingApproval>(await h.tool(identity, 'service_delete_lead', { lead_id: lead.id }));
    assert.equal(pending.status, 'pending_approval');
    return { ...pending, leadId: lead.id };
  }
  /** Waits for the work the tool call left in the background (the e-mails), so what was sent is all there. */
  const backgroundDone = () => Promise.allSettled([...h.deps.background]);
  const sentFor = (approvalId: string) => smtp.received.filter((mail) => mail.raw.replace(/=\r?\n/g, '').includes(approvalId));
  /** The Subject header, unfolded (a long header is folded onto several lines). */
  const subjectOf = (mail: ReceivedMail) => /^Subject: (.*)$/m.exec(mail.raw.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? '';

  before(async () => {
    smtp = await startMailServer();
    h = await startMcpHarness({ SMTP_URL: smtp.url, MAIL_FROM: 'Voice approvals <approvals@example.com>' }, { console: true });
    const consoleService = h.platform.console;
    assert.ok(consoleService, 'the harness runs the console');
    org = await h.identity();
    const other = await h.identity();
    const person = async (orgId: string, role: 'owner' | 'admin' | 'member') =>
      (await invitePerson(consoleService.deps, orgId, role)).email;
    const admin = await invitePerson(consoleService.deps, org.org_id, 'admin');
    adminUserId = admin.userId;
    people = {
      owner: await person(org.org_id, 'owner'),
      admin: admin.email,
      member: await person(org.org_id, 'member'),
      otherOwner: await person(other.org_id, 'owner'),
      otherAdmin: await person(other.org_id, 'admin'),
    };
  });
  after(async () => {
    await h?.close();
    await smtp?.close();
  });

  test('an approval created: the owner and the admin each get one e-mail with its console link; the member and another organization get none', async () => {
    const pending = await askToDelete(org);
    const link = `${h.deps.env.PUBLIC_BASE_URL}/dashboard/approvals/${pending.approval_id}`;
    assert.equal(pending.console_url, link);
    // The link is the console's page of an approval.
    assert.ok(h.platform.console?.app.hasRoute({ method: 'GET', url: '/dashboard/approvals/:id' }));

    for (const to of [people.owner, people.admin]) {
      const mail = await smtp.next(to);
      assert.equal(linkIn(mail), link);
      assert.equal(mail.from, 'approvals@example.com');
      const text = mail.raw.replace(/=\r?\n/g, '');
      assert.match(subjectOf(mail), new RegExp(`^Approval needed in ${org.org_id}: `));
      assert.ok(text.includes('service_delete_lead'), 'the e-mail names the tool');
      assert.ok(text.includes(org.org_id), 'the e-mail names the organization');
    }
    await backgroundDone();
    const recipients = sentFor(pending.approval_id).flatMap((mail) => mail.to);
    assert.deepEqual(recipients.sort(), [people.owner, people.admin].map((email) => email.toLowerCase()).sort());
    for (const mail of sentFor(pending.approval_id)) {
      assert.ok(!mail.raw.includes(h.deps.env.INTERNAL_SIGNING_SECRET), 'no secret in the e-mail');
    }
  });

  test('the same action asked again sends nothing again', async () => {
    const first = await askToDelete(org);
    await backgroundDone();
    const before = smtp.received.length;
    const again = structured<PendingApproval>(await h.tool(org, 'service_delete_lead', { lead_id: first.leadId }));
    assert.equal(again.approval_id, first.approval_id);
    await backgroundDone();
    assert.equal(smtp.received.length, before);
  });

  test('an approval bound to the person who owns the asking key (a URL elicitation) is e-mailed to that person only', async () => {
    // The admin's key: an MCP client that shows URL elicitations binds the approval to the key's owner.
    const owned: Identity = { ...org, owner_user_id: adminUserId };
    const client = await sdkClient(await listenOn(h.app), owned, { capabilities: { elicitation: { url: {} } } });
    try {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' as const }));
      const lead = structured<{ id: string }>(await h.tool(org, 'service_create_lead', { name: 'John Roe', phone: '+14155550124' }));
      const result = (await client.callTool({ name: 'service_delete_lead', arguments: { lead_id: lead.id } })) as CallToolResult;
      const pending = structured<PendingApproval>(result);
      assert.equal(pending.status, 'pending_approval');
      const row = await h.deps.prisma.approval.findUniqueOrThrow({ where: { id: pending.approval_id } });
      assert.equal(row.boundUserId, adminUserId, 'bound to the key’s owner as it was made');
      await backgroundDone();
      assert.deepEqual(
        sentFor(pending.approval_id).flatMap((mail) => mail.to),
        [people.admin.toLowerCase()],
      );
    } finally {
      await client.close();
    }
  });

  test('SMTP down: the tool call still answers pending_approval, and the failure is logged', async (t) => {
    const errors = t.mock.method(h.deps.logger, 'error');
    await smtp.close();
    const pending = await askToDelete(org);
    assert.equal(pending.status, 'pending_approval');
    await backgroundDone();
    assert.deepEqual(sentFor(pending.approval_id), []);
    const notSent = errors.mock.calls.filter((call) => call.arguments[1] === 'e-mail not sent');
    assert.equal(notSent.length, 2, 'one failure logged per approver');
  });
});
