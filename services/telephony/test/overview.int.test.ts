// The overview and the roll-ups behind it (quarter hours, hours, days): after a mix of calls (queued, played out by the sandbox,
// failed, canceled, inbound, edited and deleted) and messages (sent, delivered, undelivered, received),
// the roll-ups equal a count over the raw rows, and the overview equals what the rows say.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError, type Bus, newId } from '@voice/kit';
import { eventually, testIdentity } from '@voice/kit/testing';
import { type Call, type Overview, type Sms, telephonyRpc } from '@voice/proto';
import { applyCallReport, receiveCall } from '../src/domain/calls.js';
import { applySmsReport, receiveSms } from '../src/domain/sms.js';
import { connectCaller, type Harness, startHarness } from './support/harness.js';

const identity = testIdentity();
const stranger = testIdentity();
const ourNumber = '+15005550100';
let h: Harness;
let caller: Bus;
before(async () => {
  // Inbound calls and messages to ourNumber belong to the organization under test.
  h = await startHarness({ TELEPHONY_NUMBER_ORGS: `${ourNumber}=${identity.org_id}` });
  caller = await connectCaller(h, 'test-console');
});
after(async () => {
  await caller.drain();
  await h.close();
});

const hourMs = 60 * 60 * 1000;

/** The roll-ups (quarter-hourly, hourly and daily) next to the same counts over the raw rows, rows whose counts are all 0 left out. */
async function rollUpsAndCounts() {
  const prisma = h.deps.prisma;
  type Unit = 'quarter' | 'hour' | 'day';
  const bin = (unit: Unit, column: string) =>
    unit === 'quarter'
      ? `date_bin('15 minutes', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')`
      : `date_trunc('${unit}', ${column}, 'UTC')`;
  const callsBy = (unit: Unit) =>
    prisma.$queryRawUnsafe<unknown[]>(`
      SELECT org_id, ${bin(unit, 'created_at')} AS at, direction::text, status::text, coalesce(outcome::text, 'none') AS outcome,
             started_at IS NOT NULL AS answered, count(*)::int8 AS calls, coalesce(sum(duration_seconds), 0)::int8 AS duration_seconds,
             count(duration_seconds)::int8 AS with_duration, coalesce(sum(cost_amount), 0)::int8 AS cost_amount
      FROM calls GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`);
  const callRollUp = (unit: Unit) =>
    prisma.$queryRawUnsafe<unknown[]>(`
      SELECT org_id, ${unit} AS at, direction::text, status::text, outcome, answered, calls::int8, duration_seconds::int8, with_duration::int8, cost_amount::int8
      FROM call_${unit}s WHERE calls <> 0 OR duration_seconds <> 0 OR with_duration <> 0 OR cost_amount <> 0 ORDER BY 1, 2, 3, 4, 5, 6`);
  const smsBy = (unit: Unit) =>
    prisma.$queryRawUnsafe<unknown[]>(`
      SELECT org_id, ${bin(unit, 'created_at')} AS at, direction::text, status::text, count(*)::int8 AS messages,
             sum(segments)::int8 AS segments, coalesce(sum(cost_amount), 0)::int8 AS cost_amount
      FROM sms GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
  const smsRollUp = (unit: Unit) =>
    prisma.$queryRawUnsafe<unknown[]>(`
      SELECT org_id, ${unit} AS at, direction::text, status::text, messages::int8, segments::int8, cost_amount::int8
      FROM sms_${unit}s WHERE messages <> 0 OR segments <> 0 OR cost_amount <> 0 ORDER BY 1, 2, 3, 4`);
  const units: Unit[] = ['quarter', 'hour', 'day'];
  return Promise.all(
    units.map(async (unit) => ({
      unit,
      calls: await callRollUp(unit),
      callCounts: await callsBy(unit),
      sms: await smsRollUp(unit),
      smsCounts: await smsBy(unit),
    })),
  );
}

const finalCall = ['completed', 'busy', 'no_answer', 'failed', 'canceled'];
const finalSms = ['delivered', 'undelivered', 'failed', 'received', 'blocked_dnc', 'canceled'];

test('after a mix of calls and messages, the roll-ups equal a count over the rows', async () => {
  const context = h.deps;
  // Played out by the sandbox: completed with outcomes, busy, no answer, failed.
  const forced: Array<Record<string, string>> = [
    { sandbox_status: 'completed', sandbox_outcome: 'booked' },
    { sandbox_status: 'completed', sandbox_outcome: 'voicemail' },
    { sandbox_status: 'completed' },
    { sandbox_status: 'busy' },
    { sandbox_status: 'no_answer' },
    { sandbox_status: 'failed' },
  ];
  const queued: Call[] = [];
  for (const [i, metadata] of forced.entries()) {
    queued.push(await caller.call(telephonyRpc.queueCall, identity, { to: `+1415555080${i}`, metadata, source: 'api' }));
  }
  // Queued and canceled before the dialer reached them (written straight in), and one left queued.
  const waiting = [newId('call'), newId('call')];
  for (const id of waiting) {
    await context.prisma.call.create({
      data: {
        id,
        orgId: identity.org_id,
        direction: 'outbound',
        fromNumber: '+15005550006',
        toNumber: '+14155550899',
        status: 'queued',
        source: 'api',
      },
    });
  }
  await caller.call(telephonyRpc.cancelCall, identity, { id: waiting[0] as string });
  // An inbound call, answered and completed through carrier reports.
  const inbound = await receiveCall(context, { from: '+14155550811', to: ourNumber, carrierCallId: 'CA_inbound_1' });
  assert.ok(inbound);
  await applyCallReport(context, identity.org_id, inbound.id, { status: 'in_progress' });
  await applyCallReport(context, identity.org_id, inbound.id, {
    status: 'completed',
    outcome: 'message_taken',
    durationSeconds: 42,
    costAmount: 3,
  });
  // Older calls, in past hours, then changed and deleted the way only a person at the database would.
  const old = Array.from({ length: 12 }, (_, i) => ({
    id: newId('call'),
    orgId: i < 10 ? identity.org_id : stranger.org_id,
    direction: i % 2 === 0 ? ('inbound' as const) : ('outbound' as const),
    fromNumber: '+15005550006',
    toNumber: '+14155550820',
    status: 'completed' as const,
    outcome: i % 3 === 0 ? ('qualified_lead' as const) : null,
    durationSeconds: 60 + i,
    costAmount: 2,
    costCurrency: 'USD',
    startedAt: new Date(Date.now() - (i + 2) * hourMs),
    source: 'api' as const,
    createdAt: new Date(Date.now() - (i + 2) * hourMs - 60_000),
  }));
  await context.prisma.call.createMany({ data: old });
  await context.prisma.call.update({ where: { id: old[0]?.id }, data: { outcome: 'spam', durationSeconds: 5, costAmount: 9 } });
  await context.prisma.call.update({ where: { id: old[1]?.id }, data: { createdAt: new Date(Date.now() - 30 * hourMs) } });
  await context.prisma.call.delete({ where: { id: old[2]?.id } });

  // Messages: sent and delivered by the sandbox, an undelivered and a failed report, one received.
  const sent: Sms[] = [];
  for (const i of [0, 1, 2, 3]) {
    sent.push(await caller.call(telephonyRpc.sendSms, identity, { to: `+1415555083${i}`, body: `Hello ${i}`, source: 'api' }));
  }
  await eventually('the sandbox to deliver the messages', async () => {
    const rows = await context.prisma.sms.findMany({ where: { id: { in: sent.map((sms) => sms.id) } } });
    return rows.every((row) => row.status === 'delivered') ? rows : undefined;
  });
  const reported = await context.prisma.sms.create({
    data: {
      id: newId('sms'),
      orgId: identity.org_id,
      direction: 'outbound',
      fromNumber: '+15005550006',
      toNumber: '+14155550840',
      body: 'hi',
      segments: 2,
      status: 'sent',
      source: 'api',
      costAmount: 4,
      costCurrency: 'USD',
      sentAt: new Date(),
    },
  });
  await applySmsReport(context, identity.org_id, reported.id, { status: 'undelivered', errorCode: '30003' });
  await applySmsReport(context, identity.org_id, reported.id, { status: 'delivered' }); // late, ignored
  await receiveSms(context, { from: '+14155550811', to: ourNumber, body: 'Call me back', carrierMessageId: 'SM_in_1' });

  await eventually(
    'every call to end',
    async () => {
      const rows = await context.prisma.call.findMany({ where: { id: { in: queued.map((call) => call.id) } } });
      return rows.every((row) => finalCall.includes(row.status)) ? rows : undefined;
    },
    { timeoutMs: 20_000 },
  );
  for (const counted of await rollUpsAndCounts()) {
    assert.ok(counted.callCounts.length >= 8, `the mix covers many tuples and spans ${counted.unit}s`);
    assert.deepEqual(counted.calls, counted.callCounts, `call_${counted.unit}s`);
    assert.deepEqual(counted.sms, counted.smsCounts, `sms_${counted.unit}s`);
  }
  const smsStatuses = await context.prisma.sms.findMany({ where: { orgId: identity.org_id }, select: { status: true } });
  assert.ok(smsStatuses.every((row) => finalSms.includes(row.status)));
});

test('the overview equals what the rows say, for any period; another organization sees none of it', async () => {
  const prisma = h.deps.prisma;
  // Edges inside quarter hours, so both the roll-ups and the raw edges count.
  const from = new Date(Date.now() - 9 * hourMs - 17 * 60_000);
  const to = new Date(Date.now() + 60_000);
  const overview = await caller.call(telephonyRpc.getOverview, identity, { from: from.toISOString(), to: to.toISOString() });
  const calls = await prisma.call.findMany({ where: { orgId: identity.org_id, createdAt: { gte: from, lt: to } } });
  const sms = await prisma.sms.findMany({ where: { orgId: identity.org_id, createdAt: { gte: from, lt: to } } });
  const count = <T>(rows: T[], predicate: (row: T) => boolean) => rows.filter(predicate).length;
  const answered = calls.filter((call) => call.startedAt !== null);
  const rang = count(calls, (call) => ['in_progress', 'completed', 'failed', 'no_answer', 'busy'].includes(call.status));
  const sentSms = count(sms, (row) => row.direction === 'outbound' && ['sent', 'delivered', 'undelivered'].includes(row.status));
  const callCost = calls.reduce((sum, call) => sum + (call.costAmount ?? 0), 0);
  const smsCost = sms.reduce((sum, row) => sum + (row.costAmount ?? 0), 0);
  const timed = answered.filter((call) => call.durationSeconds !== null);
  const expected: Pick<Overview, 'from' | 'to'> & { calls: Partial<Overview['calls']>; sms: Partial<Overview['sms']> } = {
    from: from.toISOString(),
    to: to.toISOString(),
    calls: {
      total: calls.length,
      by_direction: {
        inbound: count(calls, (call) => call.direction === 'inbound'),
        outbound: count(calls, (call) => call.direction === 'outbound'),
      },
      answered: answered.length,
      answer_rate: answered.length / rang,
      average_duration_seconds: timed.reduce((sum, call) => sum + (call.durationSeconds ?? 0), 0) / timed.length,
      cost: { amount: callCost, currency: 'USD' },
    },
    sms: {
      total: sms.length,
      sent: sentSms,
      delivered: count(sms, (row) => row.status === 'delivered'),
      cost: { amount: smsCost, currency: 'USD' },
    },
  };
  assert.ok(calls.length >= 15 && sms.length >= 6, 'the period holds the mix');
  assert.deepEqual(
    {
      from: overview.from,
      to: overview.to,
      calls: {
        total: overview.calls.total,
        by_direction: overview.calls.by_direction,
        answered: overview.calls.answered,
        answer_rate: overview.calls.answer_rate,
        average_duration_seconds: overview.calls.average_duration_seconds,
        cost: overview.calls.cost,
      },
      sms: { total: overview.sms.total, sent: overview.sms.sent, delivered: overview.sms.delivered, cost: overview.sms.cost },
    },
    expected,
  );
  for (const outcome of ['booked', 'voicemail', 'message_taken', 'qualified_lead', 'spam'] as const) {
    assert.equal(
      overview.calls.by_outcome[outcome],
      count(calls, (call) => call.outcome === outcome),
      outcome,
    );
  }
  assert.equal(
    overview.calls.by_outcome.none,
    count(calls, (call) => call.outcome === null),
  );
  for (const status of ['completed', 'busy', 'no_answer', 'failed', 'canceled', 'queued'] as const) {
    assert.equal(
      overview.calls.by_status[status],
      count(calls, (call) => call.status === status),
      status,
    );
  }
  assert.equal(overview.sms.by_status.undelivered, 1);
  assert.equal(overview.sms.by_status.received, 1);
  assert.equal(overview.cost.amount, callCost + smsCost);

  // The stats, from the same roll-ups, agree with the overview.
  const stats = await caller.call(telephonyRpc.callStats, identity, {
    created_after: from.toISOString(),
    created_before: to.toISOString(),
  });
  assert.deepEqual(
    { total: stats.total, by_outcome: stats.by_outcome, by_status: stats.by_status, duration: stats.total_duration_seconds },
    {
      total: overview.calls.total,
      by_outcome: overview.calls.by_outcome,
      by_status: overview.calls.by_status,
      duration: overview.calls.total_duration_seconds,
    },
  );

  // Today in a half-hour time zone: from that zone's midnight to now.
  const today = await caller.call(telephonyRpc.getOverview, identity, { period: 'today', time_zone: 'Asia/Kolkata' });
  assert.equal(new Date(today.from).getUTCMinutes(), 30);
  assert.equal(today.time_zone, 'Asia/Kolkata');
  const month = await caller.call(telephonyRpc.getOverview, identity, { period: '30d' });
  assert.equal(month.calls.total, await prisma.call.count({ where: { orgId: identity.org_id, createdAt: { gte: new Date(month.from) } } }));

  const theirs = await caller.call(telephonyRpc.getOverview, stranger, { period: '30d' });
  assert.equal(theirs.calls.total, 2);
  assert.equal(theirs.sms.total, 0);
});

test('a series by the person’s days and hours equals a count over the rows, at the day boundaries of any zone', async () => {
  const prisma = h.deps.prisma;
  const person = testIdentity();
  const now = Date.now();
  const dayMs = 24 * hourMs;
  // Calls a millisecond either side of midnight in UTC, Paris, New York, Kolkata (UTC+5:30) and Kathmandu
  // (UTC+5:45), on each of the last 12 days, and a few at other times; mixed directions and outcomes.
  const edges = [
    '00:00:00.000',
    '23:59:59.999',
    '23:00:00.000',
    '22:59:59.999',
    '05:00:00.000',
    '04:59:59.999',
    '18:30:00.000',
    '18:29:59.999',
    '18:15:00.000',
    '18:14:59.999',
    '11:11:11.111',
  ];
  const outcomes = ['booked', 'qualified_lead', null, 'voicemail'] as const;
  const rows: Array<{ createdAt: Date; i: number }> = [];
  for (let daysBack = 0; daysBack <= 12; daysBack++) {
    const date = new Date(now - daysBack * dayMs).toISOString().slice(0, 10);
    for (const edge of edges) {
      const createdAt = new Date(`${date}T${edge}Z`);
      if (createdAt.getTime() < now - 1000) rows.push({ createdAt, i: rows.length });
    }
  }
  await prisma.call.createMany({
    data: rows.map(({ createdAt, i }) => ({
      id: newId('call'),
      orgId: person.org_id,
      direction: i % 3 === 0 ? ('inbound' as const) : ('outbound' as const),
      fromNumber: '+15005550006',
      toNumber: '+14155550870',
      status: i % 4 === 2 ? ('no_answer' as const) : ('completed' as const),
      outcome: i % 4 === 2 ? null : outcomes[i % 4],
      durationSeconds: i % 4 === 2 ? 0 : 30 + i,
      costAmount: i % 4 === 2 ? null : 2,
      costCurrency: i % 4 === 2 ? null : 'USD',
      startedAt: i % 4 === 2 ? null : createdAt,
      source: 'api' as const,
      createdAt,
    })),
  });
  const calls = await prisma.call.findMany({ where: { orgId: person.org_id } });
  const countIn = (from: number, to: number) => {
    const inside = calls.filter((call) => call.createdAt.getTime() >= from && call.createdAt.getTime() < to);
    const outcome = (value: string) => inside.filter((call) => (call.outcome ?? 'none') === value).length;
    return {
      total: inside.length,
      inbound: inside.filter((call) => call.direction === 'inbound').length,
      booked: outcome('booked'),
      qualified_lead: outcome('qualified_lead'),
      none: outcome('none'),
    };
  };
  const cases: Array<{ time_zone: string; period: 'today' | '7d' | '30d'; interval: 'hour' | 'day' }> = [];
  for (const zone of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu']) {
    cases.push({ time_zone: zone, period: 'today', interval: 'hour' }, { time_zone: zone, period: '7d', interval: 'day' });
  }
  cases.push(
    { time_zone: 'Asia/Kolkata', period: '30d', interval: 'day' },
    { time_zone: 'America/New_York', period: '30d', interval: 'day' },
  );
  for (const query of cases) {
    const overview = await caller.call(telephonyRpc.getOverview, person, query);
    const series = overview.series ?? [];
    const label = `${query.time_zone} ${query.period}`;
    if (query.period !== 'today') assert.equal(series.length, query.period === '7d' ? 7 : 30, label);
    assert.equal(series[0]?.start, overview.from, label);
    let sum = 0;
    series.forEach((bucket, index) => {
      const from = Date.parse(bucket.start);
      const to = Date.parse(series[index + 1]?.start ?? overview.to);
      const wall = new Intl.DateTimeFormat('en-GB', {
        timeZone: query.time_zone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(from);
      if (index > 0)
        assert.equal(
          wall,
          query.interval === 'day' ? '00:00' : wall.replace(/:\d\d$/, ':00'),
          `${label}: bucket ${index} starts on the clock`,
        );
      const expected = countIn(from, to);
      assert.deepEqual(
        {
          total: bucket.calls.total,
          inbound: bucket.calls.by_direction.inbound,
          booked: bucket.calls.by_outcome.booked,
          qualified_lead: bucket.calls.by_outcome.qualified_lead,
          none: bucket.calls.by_outcome.none,
        },
        expected,
        `${label}: bucket ${index} (${bucket.start})`,
      );
      sum += bucket.calls.total;
    });
    assert.equal(overview.calls.total, sum, `${label}: the series adds up to the total`);
    assert.equal(overview.calls.total, countIn(Date.parse(overview.from), Date.parse(overview.to)).total, label);
    assert.ok(overview.calls.total > 0, `${label}: the period holds calls`);
  }
  // Without a series: whole UTC days from the daily roll-up, exact for any period.
  const from = new Date(Math.floor((now - 10 * dayMs) / dayMs) * dayMs + 17 * 60_000);
  const to = new Date(now - 3 * hourMs);
  const ranged = await caller.call(telephonyRpc.getOverview, person, { from: from.toISOString(), to: to.toISOString() });
  assert.equal(ranged.series, undefined);
  assert.deepEqual(
    {
      total: ranged.calls.total,
      inbound: ranged.calls.by_direction.inbound,
      booked: ranged.calls.by_outcome.booked,
      qualified_lead: ranged.calls.by_outcome.qualified_lead,
      none: ranged.calls.by_outcome.none,
    },
    countIn(from.getTime(), to.getTime()),
  );
  // A series longer than its step allows is refused.
  await assert.rejects(
    caller.call(telephonyRpc.getOverview, person, { period: '7d', interval: 'hour' }),
    (error: unknown) => error instanceof ApiError && error.code === 'invalid_request' && error.param === 'interval',
  );
});

test('a bad time zone or period is invalid_request; a read identity may ask', async () => {
  const invalid = (param: string) => (error: unknown) =>
    error instanceof ApiError && error.code === 'invalid_request' && error.param === param;
  await assert.rejects(caller.call(telephonyRpc.getOverview, identity, { time_zone: 'Mars/Olympus' }), invalid('time_zone'));
  await assert.rejects(
    caller.call(telephonyRpc.getOverview, identity, { period: 'today', from: new Date().toISOString() }),
    invalid('period'),
  );
  await assert.rejects(
    caller.call(telephonyRpc.getOverview, identity, { from: new Date(Date.now() + hourMs).toISOString() }),
    invalid('from'),
  );
  const reader = { ...identity, scope: 'read' as const };
  assert.equal((await caller.call(telephonyRpc.getOverview, reader, { period: '7d' })).object, 'telephony_overview');
});
