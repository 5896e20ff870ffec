// Calls in a real browser (headless Chromium, through the gateway, the console's Content-Security-Policy
// enforced), with telephony's sandbox carrier on a slowed clock: a person queues a call from the console and,
// without reloading, watches it in the open calls list go from queued to ringing to completed, and its page
// fill in with the timeline, transcript, summary and cost; an inbound call, posted to telephony as Twilio
// posts it (signed with the auth token), appears at the top of the open list.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '@voice/kit';
import { testIdentity } from '@voice/kit/testing';
import { telephonyRpc } from '@voice/proto';
import type { Page } from 'playwright-core';
import { twilioSignature } from '../../telephony/src/carrier/twilio-signature.js';
import { type DialerWorkers, startDialer } from '../../telephony/src/dialer/workers.js';
import { sandboxScript } from '../../telephony/src/domain/sandbox-script.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';

/** Simulated seconds run at a fifth of real time: a few seconds of ringing, a conversation of seconds. */
const timeScale = 0.2;
const authToken = randomBytes(16).toString('hex');

describe('calls in a browser', () => {
  let app: ConsoleInBrowser;
  let dialer: DialerWorkers | undefined;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    // The dialer starts when the test says (WORKERS=outbox: events flow, nothing is dialed), so the list can
    // be seen holding a queued call first.
    app = await startConsoleInBrowser({
      telephony: { SANDBOX_TIME_SCALE: String(timeScale), WORKERS: 'outbox', TWILIO_AUTH_TOKEN: authToken },
    });
  });
  after(async () => {
    await dialer?.close();
    await app?.close();
  });

  /** The status badges each row of the live list showed, in order, recorded by the page itself as the region changes. */
  async function recordBadges(page: Page): Promise<void> {
    // A string, not a function: the test's compiler would wrap a function's inner names in a helper the page lacks.
    await page.evaluate(`(() => {
      const seen = {};
      globalThis.seenBadges = seen;
      const note = () => {
        for (const row of document.querySelectorAll('#calls-live tr[id^="row-"]')) {
          const status = row.querySelector('.badge')?.textContent ?? '';
          const list = (seen[row.id.slice(4)] ??= []);
          if (list.at(-1) !== status) list.push(status);
        }
      };
      note();
      new MutationObserver(note).observe(document.getElementById('calls-live'), { childList: true, subtree: true, characterData: true });
      globalThis.notReloaded = true;
    })()`);
  }
  const badgesOf = (page: Page, id: string) =>
    page.evaluate((callId) => (globalThis as unknown as { seenBadges: Record<string, string[]> }).seenBadges[callId] ?? [], id);
  const notReloaded = (page: Page) => page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded === true);

  test('a queued call moves queued → ringing → completed in the open list, its page fills in live, and an inbound call appears on top', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await acceptInvitation(person.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Cara Caller');

    // The calls list, open in a tab of its own, following the organization's events.
    const list = await person.context.newPage();
    await list.goto('/dashboard/calls');
    await list.locator('#calls-empty').filter({ hasText: 'No calls yet.' }).waitFor();
    await list.locator('html[data-live-state="open"]').waitFor();
    await recordBadges(list);

    // Queue from the form. The sandbox plays each call from a script derived from its id (12% are never
    // answered, ringing and talk times vary): the test keeps a call that rings a while and talks briefly,
    // and cancels the others before the dialer starts.
    const number = '+14155550177';
    let callId = '';
    for (let attempt = 0; attempt < 40 && !callId; attempt++) {
      await person.page.goto('/dashboard/calls/new');
      await person.page.getByLabel('Number to call').fill(number);
      await person.page.getByRole('button', { name: 'Queue the call' }).click();
      await person.page.waitForURL(/\/dashboard\/calls\/call_[0-9A-Za-z]+$/);
      const id = new URL(person.page.url()).pathname.split('/').at(-1) as string;
      const script = sandboxScript(id, {});
      if (script.finalStatus === 'completed' && script.ringSeconds * timeScale >= 1 && script.talkSeconds * timeScale <= 12) callId = id;
      else await app.platform.telephony.deps.bus.call(telephonyRpc.cancelCall, testIdentity({ org_id: orgId }), { id });
    }
    assert.ok(callId, 'a call whose script completes');
    await person.page.getByRole('status').filter({ hasText: 'Call queued.' }).waitFor();
    await person.page.locator('html[data-live-state="open"]').waitFor();

    const row = list.locator(`#row-${callId}`);
    await row.locator('.badge', { hasText: 'queued' }).waitFor();
    dialer = startDialer(app.platform.telephony.deps, app.platform.telephony.deps.queues, createLogger('dialer', 'silent'));
    await row.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const seen = await badgesOf(list, callId);
    const order = ['queued', 'ringing', 'completed'].map((status) => seen.indexOf(status));
    assert.ok(
      order.every((index, position) => index >= 0 && (position === 0 || index > (order[position - 1] ?? -1))),
      `the list showed queued, then ringing, then completed: ${seen.join(' → ')}`,
    );
    assert.equal(await notReloaded(list), true, 'the list was never reloaded');

    // The call's page, open since the redirect, followed the call too: timeline, transcript, summary, cost.
    const page = person.page;
    await page.locator('#call-status', { hasText: 'completed' }).waitFor({ timeout: 10_000 });
    await page.locator('#call-conversation .turn').first().waitFor();
    assert.deepEqual(await page.locator('#call-timeline li .badge').allTextContents(), ['queued', 'ringing', 'in progress', 'completed']);
    assert.ok((await page.locator('#call-conversation .turn').count()) >= 2, 'the transcript as speaker turns');
    assert.match((await page.locator('#call-summary').textContent()) ?? '', /\S/);
    assert.match((await page.locator('#call-cost').textContent()) ?? '', /\$\d/);
    await page.locator('#live-announcer').filter({ hasText: 'updated.' }).waitFor();

    // An inbound call from the number just called: Twilio posts it signed with the auth token; the list shows it on top.
    const telephony = app.platform.telephony.deps;
    const path = '/api/hooks/twilio/calls/inbound';
    const params = {
      CallSid: `CA${randomBytes(16).toString('hex')}`,
      From: number,
      To: telephony.env.TELEPHONY_DEFAULT_FROM,
      CallStatus: 'ringing',
      Direction: 'inbound',
    };
    const answered = await app.platform.telephony.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(authToken, `${telephony.env.PUBLIC_BASE_URL.replace(/\/$/, '')}${path}`, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
    assert.equal(answered.statusCode, 200, answered.body);
    const inbound = await telephony.prisma.call.findFirstOrThrow({ where: { carrierCallId: params.CallSid } });
    assert.equal(inbound.orgId, orgId);
    const top = list.locator('#calls-table tbody tr').first();
    await list.locator(`#row-${inbound.id}`).waitFor();
    assert.equal(await top.getAttribute('id'), `row-${inbound.id}`);
    assert.match((await top.textContent()) ?? '', /inbound[\s\S]*\+1 415 555 0177[\s\S]*ringing/);
    assert.equal(await notReloaded(list), true, 'still the same document');
    assert.deepEqual(refused, [], 'the pages and their script run under the strict policy');
    await person.context.close();
  });
});
