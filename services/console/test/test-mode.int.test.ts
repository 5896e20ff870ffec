// Test mode in the console (issue 32): the "Test data" switch of a session, its banner on every page, and the
// data pages acting on the organization's test twin while it is on; keys made there are vk_test_ keys; the live
// stream hears one mode; the consent page makes a grant in the mode chosen. Real gateway, console, telephony,
// leads, recall (fake model providers), mcp and webhooks, through the gateway as a browser reaches them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, type Platform, startPlatform } from '@voice/gateway/testing';
import { isTestOrg, liveOrgOf, testTwinOf } from '@voice/proto';
import { switchReturnPaths } from '../src/views/layout.js';
import { connectAgent } from './support/approvals.js';
import { Browser, invitePerson } from './support/harness.js';
import { type LiveStream, openLiveStream } from './support/live-stream.js';
import { oauthFlow } from './support/oauth-flow.js';
import { type FakeRecallProviders, startFakeRecallProviders } from './support/recall.js';

const banner = 'id="test-mode-banner"';
const vkTest = /vk_test_[0-9A-Za-z]{38}/;

describe('test mode in the console', () => {
  let platform: Platform<'telephony' | 'leads' | 'recall' | 'mcp' | 'webhooks' | 'console'>;
  let providers: FakeRecallProviders;
  let org: { orgId: string; key: string };
  let owner: { email: string; password: string; userId: string };
  const streams: LiveStream[] = [];

  before(async () => {
    providers = await startFakeRecallProviders();
    platform = await startPlatform({ services: ['telephony', 'leads', 'recall', 'mcp', 'webhooks', 'console'], recall: providers.env });
    org = await platform.org({ plan: 'pro' });
    owner = await invitePerson(platform.console.deps, org.orgId, 'owner');
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await platform?.close();
    await providers?.close();
  });

  const { tokensFor, callTool } = oauthFlow(() => ({
    platform,
    base: platform.url,
    owner,
    orgA: org,
    mcpUrl: new URL(`${platform.url}/api/mcp`),
  }));

  async function signedIn(person: { email: string; password: string } = owner) {
    const browser = new Browser(platform.gateway.app, '198.51.100.61');
    const response = await browser.signIn(person.email, person.password);
    assert.equal(response.statusCode, 303, response.body);
    return browser;
  }
  /** Turns the switch to a mode from a page's form, as pressing it does; answers the redirect. */
  async function switchTo(browser: Browser, mode: string, back = '/dashboard') {
    await browser.get(back);
    return browser.post('/dashboard/mode', { mode, back });
  }
  const sessionMode = async (userId: string) =>
    (await platform.console.deps.prisma.session.findFirstOrThrow({ where: { userId, revokedAt: null }, orderBy: { createdAt: 'desc' } }))
      .mode;

  test('the switch: off by default, on and off by a form with the session’s token; a forged mode or a missing token changes nothing', async () => {
    const person = await invitePerson(platform.console.deps, org.orgId, 'member');
    const browser = await signedIn(person);
    const first = await browser.get('/dashboard/calls');
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /role="switch" aria-checked="false" id="test-mode-switch"/);
    assert.doesNotMatch(first.body, new RegExp(banner));

    // Without the form token: refused, the session unchanged.
    const forged = await browser.post('/dashboard/mode', { mode: 'test', back: '/dashboard/calls' }, { csrf: false });
    assert.equal(forged.statusCode, 403);
    assert.equal(await sessionMode(person.userId), 'live');
    // A mode that is neither live nor test: a clear 400, the session unchanged.
    for (const mode of ['TEST', 'sandbox', '']) {
      const refused = await switchTo(browser, mode, '/dashboard/calls');
      assert.equal(refused.statusCode, 400, mode);
      assert.match(refused.body, /Choose live or test data/);
    }
    assert.equal(await sessionMode(person.userId), 'live');

    // On (a member may: it changes only what their session shows), back to the section it was pressed on.
    const on = await switchTo(browser, 'test', '/dashboard/calls');
    assert.equal(on.statusCode, 303);
    assert.equal(on.headers.location, '/dashboard/calls');
    assert.equal(await sessionMode(person.userId), 'test');
    const inTest = await browser.get('/dashboard/calls');
    assert.match(inTest.body, /role="switch" aria-checked="true" id="test-mode-switch"/);
    assert.match(inTest.body, new RegExp(banner));
    assert.match(inTest.body, /Test mode:<\/strong> you are viewing test data\. Nothing here reaches real phones or customers\./);
    assert.match(inTest.body, /Test mode on: you are viewing test data\./, 'a toast says what changed');

    // A return address that is not one of the console's sections is the overview (no open redirect).
    for (const back of ['https://evil.example/', '//evil.example', '/dashboard/calls/call_123', '/dashboard/../oauth']) {
      const elsewhere = await switchTo(browser, 'test', '/dashboard');
      assert.equal(elsewhere.statusCode, 303);
      const again = await browser.post('/dashboard/mode', { mode: 'test', back });
      assert.equal(again.statusCode, 303, back);
      assert.equal(again.headers.location, '/dashboard', back);
    }

    // Off again, from the banner's own form.
    const off = await switchTo(browser, 'live', '/dashboard/leads');
    assert.equal(off.headers.location, '/dashboard/leads');
    assert.equal(await sessionMode(person.userId), 'live');
    assert.doesNotMatch((await browser.get('/dashboard/leads')).body, new RegExp(banner));
  });

  test('the banner is on every page of the console in test mode, the error page included, and on none in live mode', async () => {
    const browser = await signedIn();
    // A record that is not there: the error page of a signed-in person, in the frame.
    const missingCall = '/dashboard/calls/call_0000000000000000000000';
    const pages = [...switchReturnPaths, '/dashboard/calls/new', '/dashboard/leads/new', missingCall];
    assert.ok(pages.length > 20, 'every section of the navigation');
    const shown = async () => {
      const seen: Array<[string, number, boolean]> = [];
      for (const path of pages) {
        const response = await browser.get(path);
        seen.push([path, response.statusCode, response.body.includes(banner)]);
      }
      return seen;
    };
    const expected = (on: boolean) => pages.map((path): [string, number, boolean] => [path, path === missingCall ? 404 : 200, on]);
    assert.deepEqual(await shown(), expected(false));
    await switchTo(browser, 'test');
    assert.deepEqual(await shown(), expected(true));
    await switchTo(browser, 'live');
    assert.deepEqual(await shown(), expected(false));
  });

  test('keys made in test mode are vk_test_ keys of the twin, listed in test mode only; live keys in live mode only', async () => {
    const browser = await signedIn();
    await switchTo(browser, 'test', '/dashboard/settings/api');
    const page = await browser.get('/dashboard/settings/api');
    assert.match(page.body, /id="test-keys-note"/);
    const created = await browser.post('/dashboard/settings/api/keys', {
      name: 'Test suite key',
      scope: 'read-write',
      monthly_quota: '500',
    });
    assert.equal(created.statusCode, 201, created.body);
    const raw = vkTest.exec(created.body)?.[0];
    assert.ok(raw, 'the key shown once is a vk_test_ key');
    assert.doesNotMatch(created.body, /vk_live_/);
    const stored = await platform.gateway.deps.prisma.apiKey.findFirstOrThrow({ where: { name: 'Test suite key' } });
    assert.equal(stored.orgId, testTwinOf(org.orgId), 'the key belongs to the test twin');
    assert.match((await browser.get('/dashboard/settings/api')).body, /Test suite key/);

    await switchTo(browser, 'live', '/dashboard/settings/api');
    const live = await browser.get('/dashboard/settings/api');
    assert.doesNotMatch(live.body, /Test suite key/);
    assert.doesNotMatch(live.body, /id="test-keys-note"/);
    const liveKey = await browser.post('/dashboard/settings/api/keys', { name: 'Live key', scope: 'read', monthly_quota: '500' });
    assert.match(liveKey.body, /vk_live_[0-9A-Za-z]{38}/);
    assert.doesNotMatch(liveKey.body, vkTest);
    await switchTo(browser, 'test', '/dashboard/settings/api');
    assert.doesNotMatch((await browser.get('/dashboard/settings/api')).body, /Live key/);
    await switchTo(browser, 'live');
  });

  test('calls: the twin’s show in test mode only, the live organization’s in live mode only; the live stream hears its own mode', async () => {
    const browser = await signedIn();
    const testSession = await signedIn();
    const cookie = (of: Browser) => [...of.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const liveStream = await openLiveStream(platform.url, cookie(browser));
    streams.push(liveStream);
    await switchTo(testSession, 'test', '/dashboard/calls');
    const testStream = await openLiveStream(platform.url, cookie(testSession));
    streams.push(testStream);

    // A test key (made in test mode) queues a call for the twin, as an integration under test would.
    const created = await testSession.post('/dashboard/settings/api/keys', {
      name: 'Calls test key',
      scope: 'read-write',
      monthly_quota: '500',
    });
    const testKey = vkTest.exec(created.body)?.[0] ?? '';
    const queue = async (key: string, to: string) => {
      const response = await fetch(`${platform.url}/api/v1/phone/calls`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ to }),
      });
      const body = await response.text();
      assert.equal(response.status, 201, body);
      return (JSON.parse(body) as { id: string }).id;
    };
    const testCall = await queue(testKey, '+14155550161');
    // The console's own form in test mode queues for the twin too.
    const form = await testSession.get('/dashboard/calls/new');
    const formKey = /name="form_key" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const queued = await testSession.post('/dashboard/calls', { to: '+14155550162', lead_id: '', workspace_id: '', form_key: formKey });
    assert.equal(queued.statusCode, 303, queued.body);
    const formCall = /call_[0-9A-Za-z]+/.exec(queued.headers.location as string)?.[0] ?? '';
    const rows = await platform.telephony.deps.prisma.call.findMany({ where: { id: { in: [testCall, formCall] } } });
    assert.deepEqual(
      rows.map((row) => row.orgId),
      [testTwinOf(org.orgId), testTwinOf(org.orgId)],
    );
    await testStream.waitFor('the test call’s event on the test page', (events) => events.some((event) => event.resource_id === testCall));

    const liveCall = await queue(org.key, '+14155550163');
    await liveStream.waitFor('the live call’s event on the live page', (events) => events.some((event) => event.resource_id === liveCall));
    // Published after the test calls' events, so those reached the hub first: the live page never heard them.
    assert.ok(!liveStream.events.some((event) => [testCall, formCall].includes(event.resource_id ?? '')), 'no test event on a live page');
    const laterTestCall = await queue(testKey, '+14155550164');
    await testStream.waitFor('a later test call', (events) => events.some((event) => event.resource_id === laterTestCall));
    assert.ok(!testStream.events.some((event) => event.resource_id === liveCall), 'no live event on a test page');

    const testList = (await testSession.get('/dashboard/calls')).body;
    for (const id of [testCall, formCall, laterTestCall]) assert.match(testList, new RegExp(`id="row-${id}"`));
    assert.doesNotMatch(testList, new RegExp(`id="row-${liveCall}"`), 'a live call never shows in test mode');
    assert.equal((await testSession.get(`/dashboard/calls/${liveCall}`)).statusCode, 404);
    const liveList = (await browser.get('/dashboard/calls')).body;
    assert.match(liveList, new RegExp(`id="row-${liveCall}"`));
    for (const id of [testCall, formCall, laterTestCall]) assert.doesNotMatch(liveList, new RegExp(`id="row-${id}"`));
    assert.equal((await browser.get(`/dashboard/calls/${testCall}`)).statusCode, 404);
  });

  test('approvals: a test key’s approval waits in test mode, marked Test, and not in live mode', async () => {
    const browser = await signedIn();
    await switchTo(browser, 'test', '/dashboard/settings/api');
    const created = await browser.post('/dashboard/settings/api/keys', {
      name: 'Agent test key',
      scope: 'read-write',
      monthly_quota: '500',
    });
    const agent = await connectAgent(platform.url, vkTest.exec(created.body)?.[0] ?? '');
    try {
      const { approvalId } = await agent.askToDeleteLead();
      const inTest = (await browser.get('/dashboard/approvals')).body;
      assert.match(inTest, new RegExp(`href="/dashboard/approvals/${approvalId}"`));
      assert.match(inTest, /pending <span class="badge warning">Test<\/span>/);
      assert.match((await browser.get(`/dashboard/approvals/${approvalId}`)).body, /<span class="badge warning">Test<\/span><\/h1>/);
      await switchTo(browser, 'live', '/dashboard/approvals');
      const inLive = await browser.get('/dashboard/approvals');
      assert.doesNotMatch(inLive.body, new RegExp(approvalId));
      assert.equal((await browser.get(`/dashboard/approvals/${approvalId}`)).statusCode, 404);
    } finally {
      await agent.close();
    }
  });

  test('the organization’s own records stay live in test mode: its members, and its name', async () => {
    const browser = await signedIn();
    await switchTo(browser, 'test', '/dashboard/members');
    const members = await browser.get('/dashboard/members');
    assert.equal(members.statusCode, 200);
    assert.match(members.body, new RegExp(owner.email.replace(/[.]/g, '\\.')));
    assert.match(members.body, /<strong>Acme<\/strong>/, 'the twin has the organization’s name');
    assert.doesNotMatch(members.body, /org_test_/);
    await switchTo(browser, 'live');
  });

  test('consent: live data by default; test data makes the twin’s grant, whose token reaches the services as the twin', async () => {
    const shown: string[] = [];
    const live = await tokensFor({ consent: (page) => shown.push(page) });
    assert.match(shown[0] ?? '', /<input type="radio" name="mode" value="live" checked>/);
    assert.equal(live.grant?.org_id, org.orgId);

    const leadsUrl = `${platform.url}/api/mcp/x/leads`;
    const twin = await tokensFor({ mode: 'test', resource: leadsUrl, scope: 'read-write', clientName: 'Test client' });
    assert.ok(twin.grant, 'the grant is the twin’s');
    assert.equal(twin.grant.org_id, testTwinOf(org.orgId));
    const lead = await callTool(twin.access_token, '/api/mcp/x/leads', 'service_create_lead', { name: 'Twin Lead' });
    assert.equal(lead.status, 200);
    const leadId = lead.body.result?.structuredContent?.id ?? '';
    const row = await platform.leads.deps.prisma.lead.findUniqueOrThrow({ where: { id: leadId } });
    assert.ok(isTestOrg(row.orgId) && liveOrgOf(row.orgId) === org.orgId, 'the lead belongs to the twin');

    // Connected apps: the test grant in test mode, marked Test; the live one in live mode.
    const browser = await signedIn();
    assert.doesNotMatch((await browser.get('/dashboard/settings/connected-apps')).body, /Test client/);
    assert.doesNotMatch((await browser.get('/dashboard/leads')).body, /Twin Lead/);
    await switchTo(browser, 'test', '/dashboard/settings/connected-apps');
    const apps = (await browser.get('/dashboard/settings/connected-apps')).body;
    assert.match(apps, /Test client/);
    assert.match(apps, /<span class="badge warning">Test<\/span>/);
    assert.match((await browser.get('/dashboard/leads')).body, /Twin Lead/);

    // A forged mode on the consent form: a 400 on the consent page, no grant.
    await assert.rejects(tokensFor({ mode: 'sandbox' }), /Choose live data or test data\./);
    // The testing toolset serves test credentials only: a live grant for it is refused, a test one made.
    const testingUrl = `${platform.url}/api/mcp/x/testing`;
    await assert.rejects(tokensFor({ mode: 'live', resource: testingUrl }), /works with test data only/);
    assert.equal((await tokensFor({ mode: 'test', resource: testingUrl })).grant?.org_id, testTwinOf(org.orgId));
    await switchTo(browser, 'live');
  });
});
