// Each MCP App in headless Chromium, inside a test host built with the ext-apps SDK's host side
// (support/app-host.ts: AppBridge over postMessage, the View in a sandboxed srcdoc iframe under the policy its
// resource declares), given a real tool result: the tools are called through this service's MCP endpoint
// against the real leads, telephony and recall services, as a test organization (test mode: telephony's
// sandbox plays calls out, recall scores a brand with its deterministic simulator). The test reads what each
// App shows, runs axe-core on the App's frame in light and dark at 1280 and 375 px, and checks the View
// loaded nothing from the network.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type HttpApp, parseEnv } from '@voice/kit';
import { eventually } from '@voice/kit/testing';
import { type Call, type Identity, testTwinOf } from '@voice/proto';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { blockingViolations, describeViolations } from '../../console/test/support/axe.js';
import { type SharedChromium, sharedChromium } from '../../console/test/support/chromium.js';
import { buildApp as buildRecall } from '../../recall/src/app.js';
import { connectDeps as connectRecall, type RecallDeps } from '../../recall/src/deps.js';
import { envSchema as recallEnvSchema } from '../../recall/src/env.js';
import { appForTool, type McpApp, readAppResource } from '../src/apps/index.js';
import { appHostPage, type ShownApp } from './support/app-host.js';
import { type McpHarness, startMcpHarness, structured } from './support/harness.js';

interface Look {
  theme: 'light' | 'dark';
  width: number;
}
const looks: readonly Look[] = [
  { theme: 'light', width: 1280 },
  { theme: 'dark', width: 375 },
  { theme: 'dark', width: 1280 },
  { theme: 'light', width: 375 },
];

/** A recording as Twilio reports one (telephony's sandbox records nothing, so the test writes the column the carrier's callback writes). */
const recordingUrl = 'https://api.twilio.com/2010-04-01/Accounts/AC0000/Recordings/RE0000.mp3';
/** Markup in data must show as text: a note holding a tag that would load an image and run code if parsed. */
const markupNote = '<img src="https://example.com/x.png" onerror="document.title=1"> said <b>yes</b>';

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount / 10 ** (currency === 'JPY' ? 0 : 2));

describe('MCP Apps in a browser, inside an ext-apps host, given real tool results', () => {
  let h: McpHarness;
  let recall: { app: HttpApp; deps: RecallDeps } | undefined;
  let chromium: SharedChromium;
  let hostPage: string;
  let testKey: Identity;

  before(async () => {
    h = await startMcpHarness();
    // The harness runs leads and telephony; recall joins the same test context (database, NATS namespace).
    const deps = await connectRecall(parseEnv(recallEnvSchema, { ...h.ctx.env, BRAND_PAGE_CHECK: 'false' }));
    recall = { deps, app: await buildRecall(deps) };
    const live = await h.identity();
    testKey = { ...live, org_id: testTwinOf(live.org_id) };
    [chromium, hostPage] = await Promise.all([sharedChromium(), appHostPage()]);
  });
  after(async () => {
    for (const host of hosts.values()) await host.context.close();
    await chromium?.release();
    await recall?.app.close();
    await recall?.deps.close();
    await h?.close();
  });

  async function tool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = await h.tool(testKey, name, args);
    structured(result); // fails the test with the tool's own error text unless it succeeded
    return result;
  }

  /** One host page per look, kept for the whole file: loading the host's bundled SDK costs seconds on a loaded machine. */
  interface HostInLook {
    context: BrowserContext;
    page: Page;
    /** Every URL the page or a View asked the network for, since the View now shown. */
    requests: string[];
  }
  const hosts = new Map<Look, HostInLook>();

  async function hostIn(look: Look): Promise<HostInLook> {
    let host = hosts.get(look);
    if (!host) {
      const context = await chromium.browser.newContext({ viewport: { width: look.width, height: 900 }, colorScheme: look.theme });
      const requests: string[] = [];
      context.on('request', (request) => requests.push(request.url()));
      const page = await context.newPage();
      await page.setContent(hostPage);
      host = { context, page, requests };
      hosts.set(look, host);
    }
    return host;
  }

  interface Shown extends HostInLook {
    frame: Frame;
  }

  /** The App of `toolName` in the look's host (in place of the View shown before), given the call's input and result; resolves once the View rendered it. */
  async function show(toolName: string, input: Record<string, unknown>, result: CallToolResult, look: Look): Promise<Shown> {
    const app = appForTool(toolName) as McpApp;
    const [content] = readAppResource(app.uri)?.contents ?? [];
    assert.ok(content, `${app.uri} reads`);
    const host = await hostIn(look);
    host.requests.length = 0;
    const shown: ShownApp = { html: content.text, csp: content._meta.ui.csp, theme: look.theme, toolName, input, result: { ...result } };
    await host.page.evaluate((app) => (globalThis as unknown as { showApp(app: ShownApp): Promise<void> }).showApp(app), shown);
    const frame = await (await host.page.waitForSelector('iframe')).contentFrame();
    assert.ok(frame, 'the View has a frame');
    // A bound for a hang only: the View renders as soon as the result arrives.
    await frame.waitForSelector('main#view:not([aria-busy])', { timeout: 30_000 });
    return { ...host, frame };
  }

  /** The App's frame through axe-core (Frame has the two Page methods the console's helper uses), and no network. */
  async function accessibleAndOffline(shown: Shown, look: Look): Promise<void> {
    const violations = await blockingViolations(shown.frame as unknown as Page);
    assert.deepEqual(violations, [], `${look.theme} at ${look.width} px:\n${describeViolations(violations)}`);
    const wide = await shown.frame.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth > root.clientWidth;
    });
    assert.equal(wide, false, `${look.theme} at ${look.width} px: the View does not scroll sideways`);
    assert.deepEqual(shown.requests, [], 'nothing loaded from the network');
  }

  /** The App in every look (or `which`): `check` reads what it shows, then axe-core and the network are checked. */
  async function inEveryLook(
    toolName: string,
    input: Record<string, unknown>,
    result: CallToolResult,
    check: (frame: Frame, shown: Shown, look: Look) => Promise<void>,
    which: readonly Look[] = looks,
  ): Promise<void> {
    for (const look of which) {
      const shown = await show(toolName, input, result, look);
      await check(shown.frame, shown, look);
      await accessibleAndOffline(shown, look);
    }
  }

  const texts = (frame: Frame, selector: string) => frame.locator(selector).allTextContents();
  const text = async (frame: Frame, selector: string) => (await frame.locator(selector).textContent())?.trim();

  test('a call: status, outcome, cost, summary, the recording player, the transcript turn by turn, the timeline', async () => {
    // A lead with the caller's number, so the simulated call is the lead's.
    await tool('service_create_lead', { name: 'Jane Roe', phone: '+15005550101' });
    const started = structured<Call>(await tool('test_simulate_inbound_call', { from: '+15005550101', outcome: 'booked' }));
    // The harness runs telephony without its sandbox worker: the test moves the call on, as test mode lets an agent.
    if (started.status !== 'completed') await tool('test_advance_call', { call_id: started.id, outcome: 'booked' });
    await eventually('the simulated call to end', async () => {
      const call = structured<Call>(await tool('service_get_call', { call_id: started.id }));
      return call.status === 'completed' && call.transcript_turns ? call : undefined;
    });
    await h.platform.telephony.deps.prisma.call.update({ where: { id: started.id }, data: { recordingUrl } });
    const result = await tool('service_get_call', { call_id: started.id });
    const call = structured<Call>(result);
    const { cost, summary, transcript_turns: turns } = call;
    assert.ok(turns && turns.length > 1 && cost && summary, 'the sandbox filled the call in');

    await inEveryLook('service_get_call', { call_id: call.id }, result, async (frame, shown, look) => {
      assert.equal(await text(frame, 'h1'), `Call from ${call.from}`);
      assert.deepEqual(await texts(frame, '.badges .badge'), ['completed', 'booked', 'Test']);
      const details = (await text(frame, 'dl')) ?? '';
      for (const shownValue of [call.id, call.to, money(cost.amount, cost.currency)]) assert.ok(details.includes(shownValue), shownValue);
      assert.deepEqual(await texts(frame, 'h2'), ['Summary', 'Recording', 'Transcript', 'Timeline']);
      assert.ok(((await text(frame, 'section:has(#section-1)')) ?? '').includes(summary));
      assert.equal(await frame.locator('audio[controls]').getAttribute('src'), recordingUrl);
      assert.deepEqual(
        await texts(frame, '.items .item-body'),
        turns.map((turn) => turn.text),
      );
      assert.deepEqual(
        await texts(frame, '.timeline .badge'),
        call.timeline.map((change) => change.status.replaceAll('_', ' ')),
      );
      if (look === looks[0]) {
        // The App never plays past the host's policy: it asks the host to open the recording instead.
        await frame.getByRole('button', { name: 'Open the recording' }).click();
        const opened = await eventually('the host to be asked to open the link', async () => {
          const links = await shown.page.evaluate(() => (globalThis as unknown as { openedLinks: string[] }).openedLinks);
          return links.length > 0 ? links : undefined;
        });
        assert.deepEqual(opened, [recordingUrl]);
      }
    });
  });

  test('a list of calls: one row per call, newest first, with status, outcome, duration and cost', async () => {
    await tool('test_simulate_inbound_call', { from: '+15005550102', outcome: 'voicemail' });
    const input = { limit: 20 };
    const result = await tool('service_list_calls', input);
    const page = structured<{ data: Call[]; has_more: boolean }>(result);
    assert.ok(page.data.length >= 2);
    await inEveryLook('service_list_calls', input, result, async (frame) => {
      assert.equal(await text(frame, 'h1'), 'Calls');
      assert.equal(await text(frame, 'caption'), `${page.data.length} calls`);
      assert.deepEqual(
        await texts(frame, 'tbody tr td:first-child code'),
        page.data.map((call) => call.id),
      );
      assert.deepEqual(
        await texts(frame, 'tbody tr td:nth-child(3) .badge:first-child'),
        page.data.map((call) => call.status.replaceAll('_', ' ')),
      );
    });
  });

  test("a lead with its notes: the notes' words as text (markup in them stays text), status and contact details", async () => {
    const lead = structured<{ id: string }>(
      await tool('service_create_lead', { name: 'Ada Lovelace', phone: '+15005550177', email: 'ada@example.com', company: 'Engines Ltd' }),
    );
    await tool('service_add_lead_note', { lead_id: lead.id, body: 'Wants a demo on Tuesday.', author: 'Sam' });
    await tool('service_add_lead_note', { lead_id: lead.id, body: markupNote });
    const input = { lead_id: lead.id };
    const result = await tool('service_get_lead', input);
    const shownLead = structured<{ name: string; notes: Array<{ body: string; author: string | null }> }>(result);
    assert.equal(shownLead.notes.length, 2);
    await inEveryLook('service_get_lead', input, result, async (frame) => {
      assert.equal(await text(frame, 'h1'), 'Ada Lovelace');
      assert.deepEqual(await texts(frame, '.badges .badge'), ['new']);
      const details = (await text(frame, 'dl')) ?? '';
      for (const value of [lead.id, '+15005550177', 'ada@example.com', 'Engines Ltd']) assert.ok(details.includes(value), value);
      assert.deepEqual(
        await texts(frame, 'section:has(h2:text-is("Notes")) .item-body'),
        shownLead.notes.map((note) => note.body),
      );
      assert.equal(await frame.locator('img, b').count(), 0, 'no element made from a note');
    });
  });

  test('the brand score card: the score and verdict, each provider’s probe, the recommendations', async () => {
    const input = { brand: 'Acme Voice', url: 'https://acme.example' };
    const result = await tool('service_brand_score', input);
    const score = structured<{
      score: number;
      verdict: string;
      zinger: string;
      probes: Array<{ provider: string; signal_score: number }>;
      recommendations: Array<{ title: string; severity: string; body: string }>;
    }>(result);
    assert.ok(score.probes.length > 0 && score.recommendations.length > 0, 'the simulator gives probes and recommendations');
    await inEveryLook('service_brand_score', input, result, async (frame) => {
      assert.equal(await text(frame, 'h1'), 'Brand score: Acme Voice');
      assert.equal(await text(frame, '.card-figure'), `${score.score} / 100`);
      assert.equal(await frame.locator('meter').getAttribute('value'), String(score.score));
      assert.equal(await text(frame, '.card .badges .badge:first-child'), score.verdict);
      assert.ok(((await text(frame, '.card')) ?? '').includes(score.zinger));
      assert.deepEqual(
        await texts(frame, 'tbody tr td:nth-child(4)'),
        score.probes.map((probe) => `${probe.signal_score} / 100`),
      );
      assert.deepEqual(
        await texts(frame, 'section:has(h2:text-is("Recommendations")) h3'),
        score.recommendations.map((item) => `${item.severity} ${item.title}`),
      );
    });
  });

  test('an invoice before it is sent, drafted and read back: lines, subtotal, tax and total, and no way to send it', async () => {
    const lead = structured<{ id: string }>(await tool('service_create_lead', { name: 'Jane Roe', phone: '+14155550101' }));
    const draftInput = {
      lead_id: lead.id,
      lines: [
        { description: 'Consulting hour', quantity: 2, unit_amount: 4950, tax_rate_bps: 825 },
        { description: 'Setup fee', unit_amount: 10000 },
      ],
      due_date: '2026-12-31',
      memo: 'Thank you for your business.',
    };
    const drafted = await tool('service_draft_invoice', draftInput);
    const invoice = structured<{ id: string; subtotal: number; tax: number; total: number; currency: string }>(drafted);
    const read = await tool('service_get_invoice', { invoice_id: invoice.id });
    // The same App for both tools: every look for the draft, light at 1280 and dark at 375 for the read back.
    for (const [toolName, input, result, which] of [
      ['service_draft_invoice', draftInput, drafted, looks],
      ['service_get_invoice', { invoice_id: invoice.id }, read, looks.slice(0, 2)],
    ] as const) {
      await inEveryLook(
        toolName,
        input,
        result,
        async (frame) => {
          assert.equal(await text(frame, 'h1'), 'Invoice draft');
          assert.deepEqual(await texts(frame, 'tbody tr td:first-child'), ['Consulting hour', 'Setup fee']);
          assert.deepEqual(await texts(frame, 'tfoot td'), [
            money(invoice.subtotal, invoice.currency),
            money(invoice.tax, invoice.currency),
            money(invoice.total, invoice.currency),
          ]);
          assert.equal(money(invoice.total, invoice.currency), '$207.17');
          assert.ok(((await text(frame, 'dl')) ?? '').includes('Dec 31, 2026'));
          assert.equal(await frame.locator('button, form, a').count(), 0, 'nothing to act with');
        },
        which,
      );
    }
  });

  test("a tool error: the App shows the tool's own words (what went wrong, what to do), as a client without Apps reads them", async () => {
    const input = { call_id: 'call_doesnotexist00000001' };
    const result = await h.tool(testKey, 'service_get_call', input);
    assert.equal(result.isError, true);
    const words = result.content[0]?.type === 'text' ? result.content[0].text : '';
    assert.match(words, /^not_found: /);
    await inEveryLook(
      'service_get_call',
      input,
      result,
      async (frame) => {
        assert.equal(await text(frame, 'h1'), 'The tool did not succeed');
        assert.equal(await text(frame, 'main p'), words);
      },
      [looks[0] as Look, looks[1] as Look],
    );
  });

  test("the host's theme and style variables win over the reader's preference, while the View is shown", async () => {
    const input = { limit: 5 };
    const result = await tool('service_list_calls', input);
    const look = looks[0] as Look; // light: the reader prefers light
    const shown = await show('service_list_calls', input, result, look);
    const background = () =>
      shown.frame.evaluate(() => {
        const { document, getComputedStyle } = globalThis as unknown as {
          document: { documentElement: object };
          getComputedStyle(element: object): { backgroundColor: string };
        };
        return getComputedStyle(document.documentElement).backgroundColor;
      });
    assert.equal(await background(), 'rgb(255, 255, 255)', "the console's light surface");
    const change = (context: Record<string, unknown>) =>
      shown.page.evaluate(
        (context) => (globalThis as unknown as { changeHostContext(context: object): void }).changeHostContext(context),
        context,
      );
    await change({ theme: 'dark' });
    await shown.frame.waitForSelector('html[data-theme="dark"]', { timeout: 30_000 });
    assert.equal(await background(), 'rgb(21, 21, 27)', "the console's dark surface");
    await accessibleAndOffline(shown, { theme: 'dark', width: look.width });
    await change({ styles: { variables: { '--color-background-primary': '#101820', '--color-text-primary': '#fafafa' } } });
    await eventually("the host's background", async () => ((await background()) === 'rgb(16, 24, 32)' ? true : undefined));
  });
});
