import { ApiError } from '@voice/kit';
import {
  type CallOutcome,
  type CallStats,
  type CallStatsQuery,
  type CallStatus,
  callOutcomes,
  callStatuses,
  type Overview,
  type OverviewBucket,
  type OverviewQuery,
  type SmsStatus,
  smsStatuses,
} from '@voice/proto';
import { type CallTuple, callTuples, type SmsTuple, smsTuples } from '../store/overview.js';
import type { TelephonyContext } from './context.js';
import { bucketStarts, resolvePeriod, seriesLimits } from './periods.js';

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;

/** Statuses of calls whose ringing is over: the answer rate's denominator (queued, ringing, canceled never rang out). */
const rangOut = new Set<CallStatus>(['in_progress', 'completed', 'failed', 'no_answer', 'busy']);
const smsSent = new Set<SmsStatus>(['sent', 'delivered', 'undelivered']);

const rate = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/** Counts of calls from their tuples: what the stats and the overview share. */
export function countCalls(tuples: CallTuple[]) {
  const byOutcome = zeros<CallOutcome | 'none'>([...callOutcomes, 'none']);
  const byStatus = zeros(callStatuses);
  const byDirection = { inbound: 0, outbound: 0 };
  let total = 0;
  let totalDuration = 0;
  let answered = 0;
  let rang = 0;
  let answeredDuration = 0;
  let answeredTimed = 0;
  let cost = 0;
  for (const tuple of tuples) {
    total += tuple.calls;
    totalDuration += tuple.durationSeconds;
    byDirection[tuple.direction] += tuple.calls;
    byOutcome[tuple.outcome as CallOutcome | 'none'] += tuple.calls;
    byStatus[tuple.status] += tuple.calls;
    cost += tuple.costAmount;
    if (rangOut.has(tuple.status)) rang += tuple.calls;
    if (tuple.answered) {
      answered += tuple.calls;
      answeredDuration += tuple.durationSeconds;
      answeredTimed += tuple.withDuration;
    }
  }
  return {
    counts: { total, by_direction: byDirection, by_outcome: byOutcome, by_status: byStatus, total_duration_seconds: totalDuration },
    answered,
    answerRate: rate(answered, rang),
    averageDuration: answeredTimed === 0 ? null : answeredDuration / answeredTimed,
    cost,
  };
}

function countSms(tuples: SmsTuple[]) {
  const byStatus = zeros(smsStatuses);
  const byDirection = { inbound: 0, outbound: 0 };
  let total = 0;
  let segments = 0;
  let cost = 0;
  let sent = 0;
  for (const tuple of tuples) {
    total += tuple.messages;
    segments += tuple.segments;
    cost += tuple.costAmount;
    byDirection[tuple.direction] += tuple.messages;
    byStatus[tuple.status] += tuple.messages;
    if (tuple.direction === 'outbound' && smsSent.has(tuple.status)) sent += tuple.messages;
  }
  const delivered = byStatus.delivered;
  return { total, by_direction: byDirection, by_status: byStatus, sent, delivered, delivery_rate: rate(delivered, sent), segments, cost };
}

/**
 * The console's overview: calls and messages created in the period, counted from the daily and hourly
 * roll-ups (and the raw rows of the partial hours: src/store/overview.ts), so 30 days cost a few thousand
 * roll-up rows whatever the volume. With `interval`, the calls of each hour or day of the person's time
 * zone too, in the same query. Costs are in TELEPHONY_CURRENCY, the one currency this service bills in.
 */
export async function getOverview(
  context: Pick<TelephonyContext, 'prisma' | 'env'>,
  orgId: string,
  query: OverviewQuery,
  now = new Date(),
) {
  const { from, to } = resolvePeriod(query, now);
  if (from >= to) throw new ApiError('invalid_request', 'from must be before to (now when to is left out).', { param: 'from' });
  const interval = query.interval;
  if (interval && to.getTime() - from.getTime() > seriesLimits[interval])
    throw new ApiError('invalid_request', `A series by ${interval} covers at most ${interval === 'hour' ? '2 days' : '92 days'}.`, {
      param: 'interval',
    });
  const starts = interval ? bucketStarts(from, to, interval, query.time_zone) : [from];
  const [calls, sms] = await Promise.all([callTuples(context.prisma, orgId, from, to, starts), smsTuples(context.prisma, orgId, from, to)]);
  const currency = context.env.TELEPHONY_CURRENCY;
  const callCounts = countCalls(calls);
  const { cost: smsCost, ...smsCounts } = countSms(sms);
  const overview: Overview = {
    object: 'telephony_overview',
    from: from.toISOString(),
    to: to.toISOString(),
    time_zone: query.time_zone,
    calls: {
      ...callCounts.counts,
      answered: callCounts.answered,
      answer_rate: callCounts.answerRate,
      average_duration_seconds: callCounts.averageDuration,
      cost: { amount: callCounts.cost, currency },
    },
    sms: { ...smsCounts, cost: { amount: smsCost, currency } },
    cost: { amount: callCounts.cost + smsCost, currency },
  };
  if (interval) overview.series = series(starts, calls);
  return overview;
}

/** Each bucket's calls by direction and outcome, every bucket present (zeros where nothing happened). */
function series(starts: Date[], tuples: CallTuple[]): OverviewBucket[] {
  const buckets = starts.map((start) => ({
    start: start.toISOString(),
    calls: { total: 0, by_direction: { inbound: 0, outbound: 0 }, by_outcome: zeros<CallOutcome | 'none'>([...callOutcomes, 'none']) },
  }));
  for (const tuple of tuples) {
    const bucket = buckets[tuple.bucket];
    if (!bucket) continue;
    bucket.calls.total += tuple.calls;
    bucket.calls.by_direction[tuple.direction] += tuple.calls;
    bucket.calls.by_outcome[tuple.outcome as CallOutcome | 'none'] += tuple.calls;
  }
  return buckets;
}

/**
 * Counts of calls by outcome, direction and status over a period (default: the last 30 days). For the
 * whole organization from the roll-ups, like the overview; for one lead or workspace from the calls.
 */
export async function callStats(
  context: Pick<TelephonyContext, 'prisma'>,
  orgId: string,
  query: CallStatsQuery,
  now = new Date(),
): Promise<CallStats> {
  const before = query.created_before ? new Date(query.created_before) : now;
  const after = query.created_after ? new Date(query.created_after) : new Date(before.getTime() - 30 * 24 * 60 * 60 * 1000);
  const tuples =
    query.workspace_id || query.lead_id
      ? await filteredCallTuples(context, orgId, after, before, query)
      : await callTuples(context.prisma, orgId, after, before);
  return { object: 'call_stats', created_after: after.toISOString(), created_before: before.toISOString(), ...countCalls(tuples).counts };
}

async function filteredCallTuples(
  context: Pick<TelephonyContext, 'prisma'>,
  orgId: string,
  after: Date,
  before: Date,
  query: CallStatsQuery,
): Promise<CallTuple[]> {
  const groups = await context.prisma.call.groupBy({
    by: ['direction', 'outcome', 'status'],
    where: {
      orgId,
      createdAt: { gte: after, lt: before },
      ...(query.workspace_id ? { workspaceId: query.workspace_id } : {}),
      ...(query.lead_id ? { leadId: query.lead_id } : {}),
    },
    _count: { _all: true },
    _sum: { durationSeconds: true },
  });
  return groups.map((group) => ({
    bucket: 0,
    direction: group.direction,
    status: group.status,
    outcome: group.outcome ?? 'none',
    // The stats do not tell answered calls apart; only the overview does.
    answered: false,
    calls: group._count._all,
    durationSeconds: group._sum.durationSeconds ?? 0,
    withDuration: 0,
    costAmount: 0,
  }));
}
