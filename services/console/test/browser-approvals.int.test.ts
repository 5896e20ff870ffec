// Approvals in headless Chromium, through the gateway: an agent (an MCP client with a read-write key)
// asks to delete its lead; an owner links the Telegram chat and approves the request on its console page;
// the action runs once, and the agent sees it executed by the console. Then an accessibility check (axe-core)
// of the approvals pages, which also takes the README's screenshots when asked.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { type Agent, type ApprovalsPlatform, connectAgent, linkTelegramInBrowser, startApprovalsInBrowser } from './support/approvals.js';
import { blockingViolations, describeViolations } from './support/axe.js';
import type { ConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

/** `CONSOLE_SCREENSHOTS=1 npm test -- browser-approvals` refreshes the README's pictures; CI leaves the tree alone. */
const screenshotDir = process.env.CONSOLE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : null;

const approverChat = '-1001234567890';

describe('approvals in a browser', () => {
  let app: ConsoleInBrowser<'console' | 'webhooks'> & { platform: ApprovalsPlatform };
  const agents: Agent[] = [];
  const steps = browserSteps(() => app);
  const { openBrowser, acceptInvitation } = steps;

  before(async () => {
    app = await startApprovalsInBrowser();
  });
  after(async () => {
    for (const agent of agents) await agent.close();
    await app?.close();
  });

  async function agentOf(key: string): Promise<Agent> {
    const agent = await connectAgent(app.url, key);
    agents.push(agent);
    return agent;
  }
  const linkTelegram = (page: Page) => linkTelegramInBrowser(page, app.platform, approverChat);
  const leadCount = (leadId: string) => app.platform.leads.deps.prisma.lead.count({ where: { id: leadId } });

  test('an agent’s delete waits; the owner links Telegram and approves it on its page; it runs once and the agent sees it executed via the console', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const owner = await openBrowser();
    await acceptInvitation(owner.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Olivia Owner');
    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await owner.page.waitForURL(/\/dashboard\/approvals$/);
    await linkTelegram(owner.page);
    assert.match((await owner.page.locator('#channel-telegram').textContent()) ?? '', new RegExp(`chat ${approverChat}`));

    const agent = await agentOf(key);
    const { leadId, approvalId } = await agent.askToDeleteLead();
    const request = app.platform.telegram.callsOf('sendMessage').find((call) => String(call.body.text).includes(approvalId));
    assert.equal(String(request?.body.chat_id), approverChat, 'the request went to the linked chat');
    assert.equal(await leadCount(leadId), 1, 'nothing was done yet');

    await owner.page.reload();
    const row = owner.page.getByRole('row').filter({ hasText: leadId });
    assert.match((await row.textContent()) ?? '', /pending/);
    await row.getByRole('link').click();
    await owner.page.getByRole('heading', { name: `Approval ${approvalId}` }).waitFor();
    assert.match((await owner.page.locator('#approval-arguments').textContent()) ?? '', new RegExp(leadId));
    // The same page in a second tab, left open: its form is used after the decision.
    const staleTab = await owner.context.newPage();
    await staleTab.goto(owner.page.url());

    await owner.page.getByRole('button', { name: 'Approve and run' }).click();
    await owner.page.getByText('Approved: done.').waitFor();
    assert.equal(await owner.page.locator('#approval-status-value').textContent(), 'executed');
    assert.equal(await owner.page.getByRole('button', { name: 'Approve and run' }).count(), 0, 'no buttons once decided');
    assert.equal(await leadCount(leadId), 0, 'the lead is deleted');

    const seen = await agent.call('service_get_approval', { approval_id: approvalId });
    assert.equal(seen.status, 'executed');
    assert.equal(seen.resolved_via, 'console');
    assert.match(String(seen.resolved_by), /^console:Olivia Owner \(usr_[0-9A-Za-z]+\)$/);
    // The chat's message lost its buttons and says who approved where.
    const edit = app.platform.telegram.callsOf('editMessageText').find((call) => String(call.body.text).includes(approvalId));
    assert.match(String(edit?.body.text), /✅ Approved by console:Olivia Owner \(usr_[0-9A-Za-z]+\), and done\./);

    // Approve in the tab left open changes nothing and says why.
    await staleTab.getByRole('button', { name: 'Approve and run' }).click();
    await staleTab.getByText(/^Already executed by console:Olivia Owner/).waitFor();
    assert.equal(await leadCount(leadId), 0);
  });

  test('the approvals pages have no serious or critical accessibility violations (axe-core)', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    // Contexts that let axe's injected script run (see support/axe.ts); used for nothing else.
    const owner = await openBrowser({ bypassCSP: true });
    const member = await openBrowser({ bypassCSP: true });
    await acceptInvitation(owner.page, await app.invitationLink(orgId, 'olivia@example.com', 'owner'), 'Olivia Owner');
    await acceptInvitation(member.page, await app.invitationLink(orgId, 'max@example.com', 'member'), 'Max Member');
    await linkTelegram(owner.page);
    const agent = await agentOf(key);
    const decided = await agent.askToDeleteLead();
    const pending = await agent.askToDeleteLead();
    await owner.page.goto(`/dashboard/approvals/${decided.approvalId}`);
    await owner.page.getByRole('button', { name: 'Reject' }).click();
    await owner.page.getByText('Rejected: nothing was done.').waitFor();
    if (screenshotDir) await mkdir(screenshotDir, { recursive: true });

    /** A page reached from the approvals page by a link or a button, once its heading shows. */
    const viaApprovals = (control: { link: string } | { button: string }, heading: string) => async (page: Page) => {
      await page.goto('/dashboard/approvals');
      if ('link' in control) await page.getByRole('link', { name: control.link }).click();
      else await page.getByRole('button', { name: control.button }).click();
      await page.getByRole('heading', { name: heading }).waitFor();
    };
    const pages: Array<{ name: string; page: Page; open: string | ((page: Page) => Promise<void>) }> = [
      { name: 'approvals', page: owner.page, open: '/dashboard/approvals' },
      { name: 'approval-pending', page: owner.page, open: `/dashboard/approvals/${pending.approvalId}` },
      { name: 'approval-rejected', page: owner.page, open: `/dashboard/approvals/${decided.approvalId}` },
      { name: 'approval-channel-unlink', page: owner.page, open: viaApprovals({ link: 'Unlink…' }, 'Unlink Telegram') },
      {
        name: 'approval-channel-link-code',
        page: owner.page,
        open: viaApprovals({ button: 'Link a Telegram chat…' }, 'Link a Telegram chat'),
      },
      { name: 'approvals-as-member', page: member.page, open: '/dashboard/approvals' },
      { name: 'approval-as-member', page: member.page, open: `/dashboard/approvals/${pending.approvalId}` },
    ];
    const failures: string[] = [];
    for (const { name, page, open } of pages) {
      if (typeof open === 'string') await page.goto(open);
      else await open(page);
      const violations = await blockingViolations(page);
      if (violations.length > 0) failures.push(`${name} (${page.url()}):\n  ${describeViolations(violations)}`);
      if (screenshotDir) await page.screenshot({ path: `${screenshotDir}${name}.png`, fullPage: true });
    }
    assert.deepEqual(failures, [], `accessibility violations:\n${failures.join('\n')}`);
    // What a member sees has no forms that change anything.
    await member.page.goto(`/dashboard/approvals/${pending.approvalId}`);
    assert.equal(await member.page.getByRole('button', { name: 'Approve and run' }).count(), 0);
  });
});
