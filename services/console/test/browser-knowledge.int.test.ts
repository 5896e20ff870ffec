// Knowledge and brand score in a real browser (headless Chromium, through the gateway, the console's
// Content-Security-Policy enforced), with the recall service's model providers as local servers speaking
// OpenAI's and Anthropic's protocols: an owner adds a document by pasting it, asks a question, reads the answer
// and follows its citation to the document; then scores a brand and reads the card.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ConsoleInBrowser, startConsoleInBrowser } from './support/browser.js';
import { browserSteps, uniqueEmail } from './support/journey.js';
import { groundedAnswer, knownBrand } from './support/recall.js';

describe('knowledge and brand score in a browser', () => {
  let app: ConsoleInBrowser;
  const { openBrowser, acceptInvitation } = browserSteps(() => app);

  before(async () => {
    app = await startConsoleInBrowser();
  });
  after(async () => {
    await app?.close();
  });

  test('add a document, ask a question, follow the citation; score a brand and see the card', async () => {
    const { orgId } = await app.platform.org({ plan: 'pro' });
    const person = await openBrowser();
    const refused: string[] = [];
    person.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const { page } = person;
    await acceptInvitation(page, await app.invitationLink(orgId, uniqueEmail('owner'), 'owner'), 'Kim Knowledge');

    await page.getByRole('link', { name: 'Knowledge', exact: true }).first().click();
    await page.locator('#knowledge-empty').waitFor();
    await page.locator('#knowledge-add').click();
    await page.getByLabel('Title', { exact: true }).fill('Support hours');
    await page.locator('#document-source-url').fill('https://example.com/hours');
    await page
      .getByLabel('Text', { exact: true })
      .fill('Our support team answers phone calls from 8am to 6pm, Monday to Friday. Outside those hours the agent takes a message.');
    await page.locator('#document-add').click();
    await page.getByRole('status').filter({ hasText: 'Document added to the knowledge base.' }).waitFor();
    assert.equal(await page.locator('h1').textContent(), 'Support hours');
    const documentUrl = new URL(page.url()).pathname;
    assert.match(documentUrl, /^\/dashboard\/knowledge\/doc_[0-9A-Za-z]+$/);

    await page.goto('/dashboard/knowledge');
    await page.locator('#knowledge-ask').click();
    await page.getByLabel('Question', { exact: true }).fill('When do you answer phone calls?');
    await page.locator('#ask-submit').click();
    await page.locator('#answer').waitFor();
    assert.match((await page.locator('#answer').textContent()) ?? '', new RegExp(groundedAnswer.slice(0, 30)));
    assert.equal(await page.locator('#sources li').count(), 1);
    await page.getByRole('link', { name: 'Source 1: Support hours' }).click();
    await page.waitForURL((url) => url.pathname === documentUrl);
    assert.equal(await page.locator('h1').textContent(), 'Support hours');

    await page.getByRole('link', { name: 'Brand score', exact: true }).first().click();
    await page.getByLabel('Brand', { exact: true }).fill(knownBrand);
    await page.getByLabel('Website').fill('https://acmevoice.example/');
    await page.locator('#brand-score-submit').click();
    await page.locator('#score-card').waitFor();
    assert.match((await page.locator('#brand-score-figure').textContent()) ?? '', /^98/);
    assert.equal(await page.locator('#brand-verdict').textContent(), 'prominent');
    assert.ok(((await page.locator('#brand-zinger').textContent()) ?? '').length > 0);
    assert.equal(await page.locator('.probe').count(), 2);
    assert.deepEqual(refused, [], 'nothing was refused by the Content-Security-Policy');
  });
});
