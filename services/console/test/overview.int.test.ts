// The overview (GET /dashboard) against the real telephony, leads and mcp services: its figures equal what
// was seeded for each period, the person's time zone decides where days begin, every figure links to the
// list it counts with the period's days, a bad period is a 400 page, a member sees it, and another
// organization's calls, messages and leads are never counted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Platform, startPlatform } from '@voice/gateway/testing';
import { dayIn, localMidnight, newId } from '@voice/kit';
import { testIdentity } from '@voice/kit/testing';
import { leadsRpc } from '@voice/proto';
import { setUserTimeZone } from '../src/store/users.js';
import { type Agent, connectAgent } from './support/approvals.js';
import { Browser, invitePerson } from './support/harness.js';

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

/** The figure of a card (`<div class="card" id="…">`), as shown. */
function figure(body: string, id: string): string {
  const match = new RegExp(
    `<div class="card" id="${id}">\\s*<p class="card-label">[^<]*</p>\\s*<p class="card-figure">([\\s\\S]*?)</p>`,
  ).exec(body);
  assert.ok(match, `card ${id} on the page`);
  return (match[1] ?? '').replace(/<[^>]+>/g, '').trim();
}

/** Every link of the page (or of the part between two markers), `&amp;` read back as `&`. */
function links(body: string): string[] {
  return [...body.matchAll(/href="([^"]+)"/g)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'));
}

/** The part of the page from an element with this id to the end of its section (or of its table). */
function region(body: string, id: string, end = '</section>'): string {
  const start = body.indexOf(`id="${id}"`);
  assert.ok(start >= 0, `#${id} on the page`);
  return body.slice(start, body.indexOf(end, start));
}

describe('the overview', () => {
  let platform: Platform<'telephony' | 'leads' | 'mcp' | 'console'>;
  const agents: Agent[] = [];

  before(async () => {
    platform = await startPlatform({ services: ['telephony', 'leads', 'mcp', 'console'] });
  });
  after(async () => {
    for (const agent of agents) await agent.close();
    await platform?.close();
  });

  async function signedIn(orgId: string, role: 'owner' | 'member', timeZone = 'UTC') {
    const person = await invitePerson(platform.console.deps, orgId, role);
    await setUserTimeZone(platform.console.deps.prisma, person.userId, timeZone);
    const browser = new Browser(platform.console.app, '198.51.100.20');
    assert.equal((await browser.signIn(person.email, person.password)).statusCode, 303);
    return browser;
  }

  /** Calls written through telephony's own data layer (its roll-up triggers count them), as its tests do. */
  async function seedCalls(
    orgId: string,
    calls: Array<{ at: Date; direction?: 'inbound' | 'outbound'; outcome?: 'booked' | 'qualified_lead' | null; answered?: boolean }>,
  ) {
    await platform.telephony.deps.prisma.call.createMany({
      data: calls.map((call) => {
        const answered = call.answered ?? true;
        return {
          id: newId('call'),
          orgId,
          direction: call.direction ?? 'outbound',
          fromNumber: '+15005550006',
          toNumber: '+14155550150',
          status: answered ? ('completed' as const) : ('no_answer' as const),
          outcome: answered ? (call.outcome ?? null) : null,
          durationSeconds: answered ? 90 : 0,
          costAmount: answered ? 4 : null,
          costCurrency: answered ? 'USD' : null,
          startedAt: answered ? call.at : null,
          endedAt: new Date(call.at.getTime() + 90_000),
          source: 'api' as const,
          createdAt: call.at,
        };
      }),
    });
  }

  async function seedMessages(orgId: string, messages: Array<{ at: Date; status: 'delivered' | 'undelivered' | 'received' }>) {
    await platform.telephony.deps.prisma.sms.createMany({
      data: messages.map((message) => ({
        id: newId('sms'),
        orgId,
        direction: message.status === 'received' ? ('inbound' as const) : ('outbound' as const),
        fromNumber: '+15005550006',
        toNumber: '+14155550151',
        body: 'Hello',
        segments: 1,
        status: message.status,
        source: message.status === 'received' ? ('inbound' as const) : ('api' as const),
        costAmount: message.status === 'received' ? null : 1,
        costCurrency: message.status === 'received' ? null : 'USD',
        createdAt: message.at,
      })),
    });
  }

  test('figures for each period equal what was seeded, and every figure links to its list with the period’s days', async () => {
    const { orgId, key } = await platform.org({ plan: 'pro' });
    const other = await platform.org({ plan: 'pro' });
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const midnight = localMidnight('UTC', now, 0);
    // Today (since UTC midnight), 3 days ago, 20 days ago and 40 days ago, with outcomes and directions.
    const sinceMidnight = now.getTime() - midnight.getTime();
    const today = (ms: number) => new Date(midnight.getTime() + Math.min(ms, sinceMidnight - 1000));
    await seedCalls(orgId, [
      { at: today(60_000), outcome: 'booked' },
      { at: today(120_000), direction: 'inbound', outcome: 'qualified_lead' },
      { at: today(180_000), answered: false },
      { at: ago(3 * dayMs), outcome: 'booked' },
      { at: ago(3 * dayMs + hourMs), direction: 'inbound' },
      { at: ago(20 * dayMs), outcome: 'qualified_lead' },
      { at: ago(40 * dayMs), outcome: 'booked' },
    ]);
    await seedMessages(orgId, [
      { at: today(30_000), status: 'delivered' },
      { at: today(40_000), status: 'undelivered' },
      { at: ago(3 * dayMs), status: 'delivered' },
      { at: ago(3 * dayMs), status: 'received' },
    ]);
    // Another organization's traffic, which this one's overview never counts.
    await seedCalls(other.orgId, [{ at: today(60_000), outcome: 'booked' }, { at: ago(2 * dayMs) }]);
    await seedMessages(other.orgId, [{ at: today(30_000), status: 'delivered' }]);
    // Leads: two new today (one qualified), one created long ago and qualified 3 days ago; another organization's.
    const bus = platform.console.deps.bus;
    const identity = { ...testIdentity(), org_id: orgId };
    const hot = await bus.call(leadsRpc.createLead, identity, { name: 'Hot lead', company: 'Acme', status: 'qualified' });
    await bus.call(leadsRpc.createLead, identity, { name: 'Cold lead' });
    const old = await bus.call(leadsRpc.createLead, identity, { name: 'Old lead' });
    await platform.leads.deps.prisma.lead.updateMany({
      where: { id: old.id },
      data: { createdAt: ago(60 * dayMs), status: 'qualified', qualifiedAt: ago(3 * dayMs) },
    });
    await bus.call(leadsRpc.createLead, { ...testIdentity(), org_id: other.orgId }, { name: 'Not ours', status: 'qualified' });
    // One approval waiting: an agent asks to delete a lead.
    const agent = await connectAgent(platform.url, key);
    agents.push(agent);
    await agent.askToDeleteLead();

    const owner = await signedIn(orgId, 'owner');
    const expected = {
      today: {
        calls: 3,
        answerRate: '67%',
        qualified: 1,
        sent: 2,
        cost: '$0.10',
        days: { from: dayIn('UTC', now), to: dayIn('UTC', now) },
      },
      '7d': {
        calls: 5,
        answerRate: '80%',
        qualified: 2,
        sent: 3,
        cost: '$0.19',
        days: { from: dayIn('UTC', ago(6 * dayMs)), to: dayIn('UTC', now) },
      },
      '30d': {
        calls: 6,
        answerRate: '83%',
        qualified: 2,
        sent: 3,
        cost: '$0.23',
        days: { from: dayIn('UTC', ago(29 * dayMs)), to: dayIn('UTC', now) },
      },
    };
    for (const [period, want] of Object.entries(expected)) {
      const shown = await owner.get(`/dashboard?period=${period}`);
      assert.equal(shown.statusCode, 200, period);
      const body = shown.body;
      assert.equal(figure(body, 'overview-calls'), String(want.calls), `${period}: calls`);
      assert.equal(figure(body, 'overview-answer-rate'), want.answerRate, `${period}: answer rate`);
      assert.equal(figure(body, 'overview-qualified'), String(want.qualified), `${period}: qualified leads`);
      assert.equal(figure(body, 'overview-sms'), String(want.sent), `${period}: messages sent`);
      assert.equal(figure(body, 'overview-cost'), want.cost, `${period}: cost`);
      assert.equal(figure(body, 'overview-approvals'), '1', `${period}: approvals waiting`);
      assert.match(body, new RegExp(`id="overview-period-${period}" href="/dashboard\\?period=${period}" aria-current="page"`));
      // Every list link of the figures and the charts carries the period's days; the ones named here exactly.
      const { from, to } = want.days;
      const days = `from=${from}&to=${to}`;
      const figureLinks = links(region(body, 'overview-figures')).concat(links(region(body, 'overview-charts')));
      for (const href of figureLinks.filter((href) => /^\/dashboard\/(calls|messages)\?/.test(href))) {
        // The period's days, or (a bar of the chart) one day inside them.
        const [, first, last] = /[?&]from=(\d{4}-\d{2}-\d{2})&to=(\d{4}-\d{2}-\d{2})$/.exec(href) ?? [];
        assert.ok(
          (first === from && last === to) || (first === last && first !== undefined && first >= from && first <= to),
          `${period}: ${href}`,
        );
      }
      for (const href of [
        `/dashboard/calls?${days}`,
        `/dashboard/calls?direction=inbound&${days}`,
        `/dashboard/calls?direction=outbound&${days}`,
        `/dashboard/calls?status=completed&${days}`,
        `/dashboard/calls?outcome=booked&${days}`,
        `/dashboard/calls?outcome=qualified_lead&${days}`,
        `/dashboard/messages?direction=outbound&${days}`,
        `/dashboard/messages?direction=outbound&status=delivered&${days}`,
        `/dashboard/messages?direction=inbound&${days}`,
        '/dashboard/approvals?status=pending',
      ]) {
        assert.ok(figureLinks.includes(href), `${period}: links to ${href}`);
      }
      // The chart's table: one row per day (per hour today), its days linking to that day's calls.
      const rows = region(body, 'overview-calls-table', '</table>').match(/<tr><th scope="row">/g) ?? [];
      if (period === '7d') assert.equal(rows.length, 7);
      if (period === '30d') assert.equal(rows.length, 30);
      if (period !== 'today')
        assert.ok(figureLinks.includes(`/dashboard/calls?from=${to}&to=${to}`), `${period}: today's bar links to today`);
      // The leads created in the period link to the leads list with its days; qualified leads stay text (the
      // list filters by the day a lead was created, and a lead qualified today may be older).
      const leadLinks = links(region(body, 'overview-figures')).filter((href) => href.includes('lead'));
      assert.deepEqual(leadLinks, [`/dashboard/leads?${days}`], `${period}: the new leads link to their list`);
    }
    // The newest calls link to their pages; the newest leads are listed unlinked; none of the other organization's.
    const body = (await owner.get('/dashboard')).body;
    const latest = region(body, 'overview-latest-calls');
    assert.equal(links(latest).filter((href) => /^\/dashboard\/calls\/call_/.test(href)).length, 5);
    assert.match(region(body, 'overview-latest-leads'), /Hot lead/);
    assert.match(region(body, 'overview-latest-leads'), /Acme/);
    assert.doesNotMatch(body, /Not ours/);
    assert.ok(hot.id);
    // The page follows events: its regions say which.
    assert.match(body, /id="overview-figures" data-live="call sms approval lead"/);
    assert.match(body, /id="overview-charts" data-live="call"/);
    assert.match(body, /id="overview-latest-leads" data-live="lead"/);
    assert.match(body, /<script src="\/dashboard\/static\/live\.js" defer><\/script>/);
  });

  test('the person’s time zone decides where today begins, and the days of the links', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const now = new Date();
    const zones = ['Asia/Kolkata', 'America/New_York', 'UTC'];
    // A call a minute either side of each zone's last midnight (the one after it only if it is past already).
    const times = zones
      .flatMap((zone) => {
        const midnight = localMidnight(zone, now, 0).getTime();
        return [midnight - 60_000, Math.min(midnight + 60_000, now.getTime() - 1000)];
      })
      .map((time) => new Date(time));
    await seedCalls(
      orgId,
      times.map((at) => ({ at })),
    );
    for (const zone of zones) {
      const person = await signedIn(orgId, 'member', zone);
      const body = (await person.get('/dashboard?period=today')).body;
      const midnight = localMidnight(zone, now, 0).getTime();
      const today = times.filter((time) => time.getTime() >= midnight).length;
      assert.equal(figure(body, 'overview-calls'), String(today), `${zone}: today's calls`);
      const day = dayIn(zone, now);
      assert.ok(links(region(body, 'overview-figures')).includes(`/dashboard/calls?from=${day}&to=${day}`), `${zone}: today is ${day}`);
      assert.match(body, new RegExp(`in your time zone \\(${zone.replace('/', '\\/')};`));
      const week = (await person.get('/dashboard?period=7d')).body;
      assert.equal(figure(week, 'overview-calls'), String(times.length), `${zone}: the week holds them all`);
      assert.ok(
        links(region(week, 'overview-figures')).includes(`/dashboard/calls?from=${dayIn(zone, localMidnight(zone, now, 6))}&to=${day}`),
        `${zone}: the week's days`,
      );
    }
  });

  test('a new organization gets the empty state; a member sees the overview; a bad period is a 400 page', async () => {
    const { orgId } = await platform.org({ plan: 'pro' });
    const member = await signedIn(orgId, 'member');
    const empty = await member.get('/dashboard');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<h1>Organization Acme<\/h1>/);
    assert.match(empty.body, /id="overview-empty">No calls yet\.<\/p>/);
    for (const href of ['/dashboard/calls/new', '/dashboard/settings/api', '/dashboard/settings/connected-apps']) {
      assert.ok(links(region(empty.body, 'overview-charts')).includes(href), `the empty state links to ${href}`);
    }
    assert.equal(figure(empty.body, 'overview-calls'), '0');
    assert.equal(figure(empty.body, 'overview-approvals'), '0');
    assert.match(empty.body, /id="overview-period-7d" href="\/dashboard\?period=7d" aria-current="page"/, '7 days unless told');

    for (const period of ['90d', 'yesterday', '%E0%A4%A']) {
      const refused = await member.get(`/dashboard?period=${period}`);
      assert.equal(refused.statusCode, 400, period);
      assert.match(refused.body, /Choose a period the overview shows: today, 7d/);
    }
    assert.equal((await member.get('/dashboard?period=today&period=7d')).statusCode, 400, 'a period given twice');
    // The sessions form moved to Preferences.
    assert.doesNotMatch(empty.body, /sign-out-everywhere/);
    const preferences = await member.get('/dashboard/settings/preferences');
    assert.match(preferences.body, /<h2 id="sessions-heading">Sessions<\/h2>/);
    assert.match(preferences.body, /<form method="post" action="\/dashboard\/sign-out-everywhere">/);
  });
});
