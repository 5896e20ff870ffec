// Messages live in headless Chromium, through the gateway, with the console's Content-Security-Policy
// enforced and the real telephony service (sandbox carrier, at real speed so a status can be watched) behind
// it: an inbound SMS, posted to the platform's Twilio hook and signed as Twilio signs it, appears in the open
// messages list and in the open conversation without a reload; a reply sent from the conversation's send box
// moves from sent to delivered on the page as the sandbox carrier reports it; and another organization's
// messages never reach the person's stream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer } from '@voice/gateway/testing';
import type { Sms } from '@voice/proto';
import type { Page } from 'playwright-core';
import { twilioSignature } from '../../telephony/src/carrier/twilio-signature.js';
import { startSession } from '../src/domain/sessions.js';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { invitePerson } from './support/harness.js';
import { browserSteps, uniqueEmail } from './support/journey.js';
import { type LiveStream, openLiveStream } from './support/live-stream.js';
import { ourNumber } from './support/telephony-data.js';

const twilioAuthToken = 'console-messages-twilio-token-01';

describe('messages live in a browser', () => {
  let app: ConsoleInBrowser;
  const streams: LiveStream[] = [];
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    // Twilio's hooks are checked against its auth token; the carrier stays the sandbox, at real speed (a
    // message is delivered 2 s after it is sent), so the page can be seen between sent and delivered.
    app = await startConsoleInBrowser({ telephony: { TWILIO_AUTH_TOKEN: twilioAuthToken, SANDBOX_TIME_SCALE: '1' } });
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await app?.close();
  });

  /** `POST /api/v1/phone/sms` through the gateway with the organization's key. */
  async function sendWithKey(key: string, to: string, body: string): Promise<Sms> {
    const response = await fetch(`${app.url}/api/v1/phone/sms`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ to, body }),
    });
    const text = await response.text();
    assert.equal(response.status, 201, text);
    return JSON.parse(text) as Sms;
  }

  let inbound = 0;
  /** A message to the platform's number, as Twilio posts it to the public hook through the gateway, signed. */
  async function receive(from: string, body: string): Promise<void> {
    inbound += 1;
    const path = '/api/hooks/twilio/sms/inbound';
    const params = { MessageSid: `SM${String(inbound).padStart(32, '0')}`, From: from, To: ourNumber, Body: body };
    const signedUrl = `${app.platform.telephony.deps.env.PUBLIC_BASE_URL.replace(/\/$/, '')}${path}`;
    const response = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(twilioAuthToken, signedUrl, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    assert.equal(response.status, 200, await response.text());
  }

  /** A mark on the open document, which a reload would lose. */
  const markDocument = (page: Page) =>
    page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });
  const notReloaded = (page: Page) => page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded === true);

  test('an inbound SMS appears in the open list and conversation; a reply from the conversation moves from sent to delivered', async () => {
    const { orgId, key } = await app.platform.org({ plan: 'pro' });
    const them = '+14155550123';
    const owner = await openBrowser();
    const refused: string[] = [];
    owner.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await acceptInvitation(owner.page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Mira Messages');
    // The organization wrote first: an inbound message is filed under the conversation it answers.
    await sendWithKey(key, them, 'Hi Sam, your visit is confirmed for Tuesday at 10.');

    await owner.page.locator('.sidebar').getByRole('link', { name: 'Messages', exact: true }).click();
    await owner.page.waitForURL(/\/dashboard\/messages$/);
    await owner.page.locator('html[data-live-state="open"]').waitFor();
    await markDocument(owner.page);
    await receive(them, 'Could we make it Wednesday instead?');
    const row = owner.page.locator('#messages-live').getByRole('row').filter({ hasText: 'Could we make it Wednesday instead?' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Received[\s\S]*\+1 415 555 0123[\s\S]*received/);
    assert.equal(await notReloaded(owner.page), true, 'the row came without a reload');
    await owner.page.locator('#live-announcer').filter({ hasText: 'Messages updated.' }).waitFor();

    // The row leads to the conversation with that number, which follows it live too.
    await row.getByRole('link', { name: 'Could we make it Wednesday instead?' }).click();
    await owner.page.waitForURL(/\/dashboard\/messages\/conversation\?phone=%2B14155550123$/);
    await owner.page.locator('html[data-live-state="open"]').waitFor();
    await markDocument(owner.page);
    const chat = owner.page.locator('#conversation-live');
    assert.deepEqual(
      (await chat.locator('.chat-body').allTextContents()).map((text) => text.trim()),
      ['Hi Sam, your visit is confirmed for Tuesday at 10.', 'Could we make it Wednesday instead?'],
    );
    await receive(them, 'Morning works best for me.');
    await chat.locator('.chat-message.inbound').filter({ hasText: 'Morning works best for me.' }).waitFor();
    assert.equal(await notReloaded(owner.page), true, 'the message came without a reload');
    await owner.page.locator('#live-announcer').filter({ hasText: 'Conversation updated.' }).waitFor();

    // The reply, from the send box under the conversation. Every status its badge shows on the page the
    // send leads back to is recorded from that page's first moment, in order (its region is replaced as
    // events arrive, and re-read once the page's stream opens).
    await owner.page.addInitScript(`document.addEventListener('DOMContentLoaded', () => {
      const region = document.getElementById('conversation-live');
      if (!region) return;
      const seen = [];
      globalThis.replyStatuses = seen;
      const record = () => {
        const reply = [...region.querySelectorAll('.chat-message.outbound')].find((item) => item.textContent.includes('Wednesday at 9 it is.'));
        const badge = reply ? reply.querySelector('.badge') : null;
        if (badge && seen[seen.length - 1] !== badge.textContent) seen.push(badge.textContent);
      };
      record();
      new MutationObserver(record).observe(region, { childList: true, subtree: true });
    })`);
    await owner.page.getByLabel('Message to +1 415 555 0123').fill('Wednesday at 9 it is. See you then!');
    await owner.page.getByRole('button', { name: 'Send', exact: true }).click();
    await owner.page.waitForURL(/\/dashboard\/messages\/conversation\?phone=%2B14155550123$/);
    await owner.page.getByRole('status').filter({ hasText: 'Message queued for sending.' }).waitFor();
    await markDocument(owner.page);
    const reply = chat.locator('.chat-message.outbound').filter({ hasText: 'Wednesday at 9 it is. See you then!' });
    await reply.locator('.badge').filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    const seen = (await owner.page.evaluate('globalThis.replyStatuses')) as string[];
    // Shown as the page was rendered (sent, unless the carrier had not taken it yet), then delivered.
    assert.ok(seen.length >= 2, `the badge moved: ${seen.join(' → ')}`);
    assert.equal(seen.at(-1), 'delivered');
    assert.ok(
      seen.slice(0, -1).every((status) => ['queued', 'sending', 'sent'].includes(status)),
      seen.join(' → '),
    );
    assert.equal(await notReloaded(owner.page), true, 'the status moved without a reload');
    assert.deepEqual(
      (await chat.locator('.chat-body').allTextContents()).map((text) => text.trim()),
      [
        'Hi Sam, your visit is confirmed for Tuesday at 10.',
        'Could we make it Wednesday instead?',
        'Morning works best for me.',
        'Wednesday at 9 it is. See you then!',
      ],
    );
    const stored = await app.platform.telephony.deps.prisma.sms.findMany({
      where: { orgId, direction: 'outbound' },
      orderBy: { createdAt: 'asc' },
    });
    assert.deepEqual(
      stored.map((sms) => [sms.body, sms.status]),
      [
        ['Hi Sam, your visit is confirmed for Tuesday at 10.', 'delivered'],
        ['Wednesday at 9 it is. See you then!', 'delivered'],
      ],
    );
    assert.deepEqual(refused, [], 'the script runs under the strict policy');
    await owner.context.close();
  });

  test('another organization’s messages never reach the person’s stream', async () => {
    const a = await app.platform.org({ plan: 'pro' });
    const b = await app.platform.org({ plan: 'pro' });
    const sessionIn = async (orgId: string) => {
      const person = await invitePerson(app.platform.console.deps, orgId, 'owner');
      return `console_session=${await startSession(app.platform.console.deps, person.userId, orgId)}`;
    };
    const streamOfA = await openLiveStream(app.url, await sessionIn(a.orgId));
    const streamOfB = await openLiveStream(app.url, await sessionIn(b.orgId));
    streams.push(streamOfA, streamOfB);

    const fromA = await sendWithKey(a.key, '+14155550301', 'From A');
    const fromB = await sendWithKey(b.key, '+14155550302', 'From B');
    await receive('+14155550302', 'Reply to B');
    const done = (stream: LiveStream, id: string) =>
      stream.events.some((event) => event.resource_id === id && event.type === 'sms.delivered');
    await streamOfA.waitFor('A’s message delivered on A’s stream', () => done(streamOfA, fromA.id));
    await streamOfB.waitFor(
      'B’s message delivered and its reply received on B’s stream',
      () => done(streamOfB, fromB.id) && streamOfB.events.some((event) => event.type === 'sms.received'),
    );
    const ofB = new Set(streamOfB.events.map((event) => event.resource_id));
    assert.ok(ofB.has(fromB.id));
    assert.deepEqual(
      streamOfA.events.filter((event) => ofB.has(event.resource_id)),
      [],
      'A’s stream carries none of B’s messages',
    );
    assert.ok(streamOfA.events.every((event) => event.resource_id === fromA.id));
    assert.doesNotMatch(streamOfA.raw(), new RegExp(`${b.orgId}|${fromB.id}`));
  });
});
