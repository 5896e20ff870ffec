import { ApiError, type Bus, type Logger, localMidnight } from '@voice/kit';
import {
  type CallListItem,
  type Lead,
  type LeadCounts,
  leadsRpc,
  type Overview,
  type OverviewInterval,
  overviewPeriods,
  telephonyRpc,
} from '@voice/proto';
import { type DayRange, daysOf } from '../views/list-links.js';
import { personIdentity } from './identity.js';
import type { SignedIn } from './sessions.js';

export type OverviewPeriod = (typeof overviewPeriods)[number];

export const defaultPeriod: OverviewPeriod = '7d';
const periodDays: Record<OverviewPeriod, number> = { today: 1, '7d': 7, '30d': 30 };

/**
 * The period of `?period=`: `today`, `7d` or `30d`, 7 days when left out. Anything else is a 400 page, as a
 * bad filter is on the other lists: a shared link that asks for a period the page does not show is told so,
 * rather than shown another period under its address.
 */
export function overviewPeriodOf(query: unknown): OverviewPeriod {
  const value = (query as Record<string, unknown> | undefined)?.period;
  if (value === undefined || value === '') return defaultPeriod;
  if (typeof value === 'string' && (overviewPeriods as readonly string[]).includes(value)) return value as OverviewPeriod;
  throw new ApiError('invalid_request', 'Choose a period the overview shows: today, 7d (the last 7 days) or 30d (the last 30 days).', {
    param: 'period',
  });
}

export interface Span {
  from: Date;
  to: Date;
}

export interface OverviewBounds {
  period: OverviewPeriod;
  timeZone: string;
  /** From midnight (today, or 6 or 29 days before it) in the person's time zone until now. */
  current: Span;
  /** As long, just before: yesterday until this time of day, or the 7 or 30 days before. */
  previous: Span;
  /** The calendar days of `current`, for the lists' `from`/`to`. */
  days: DayRange;
  /** The chart's step: hours today, days otherwise. */
  interval: OverviewInterval;
}

/** The period's instants and days in the person's time zone, from one reading of the clock. */
export function overviewBounds(period: OverviewPeriod, timeZone: string, now: Date): OverviewBounds {
  const days = periodDays[period];
  const today = localMidnight(timeZone, now, 0);
  const sinceMidnight = now.getTime() - today.getTime();
  const from = localMidnight(timeZone, now, days - 1);
  // At midnight to the millisecond, today is one millisecond long rather than empty (an empty period is refused).
  const current = { from, to: new Date(Math.max(now.getTime(), from.getTime() + 1)) };
  const previous = {
    from: localMidnight(timeZone, now, 2 * days - 1),
    to: new Date(localMidnight(timeZone, now, days).getTime() + sinceMidnight),
  };
  return {
    period,
    timeZone,
    current,
    previous,
    days: daysOf(timeZone, current.from, current.to),
    interval: period === 'today' ? 'hour' : 'day',
  };
}

/** How many of the newest calls and leads the overview lists. */
export const latestCount = 5;

/**
 * The overview reads other services for the figures, the charts and the latest calls and leads; the page
 * shows what answered and says what did not, so a slow or absent service delays it by this much at most
 * (the overview is the page people land on after signing in).
 */
const readTimeoutMs = 3_000;

/** What the overview shows; a part is undefined when its service did not answer. */
export interface OverviewData {
  bounds: OverviewBounds;
  calls?: { current: Overview; previous: Overview | undefined };
  leads?: { current: LeadCounts; previous: LeadCounts | undefined };
  latestCalls?: CallListItem[];
  latestLeads?: Lead[];
  /** Approvals waiting for a person: the navigation's count, asked for every page already. */
  pendingApprovals?: number;
}

/**
 * Everything the overview shows, read in parallel with the person's identity (reads: any role): telephony's
 * overview of the period with its chart's series and of the previous period (totals only), the leads counts of
 * both, and the newest calls and leads.
 */
export async function readOverview(
  ctx: { bus: Bus; logger: Pick<Logger, 'warn'> },
  signedIn: SignedIn,
  requestId: string,
  period: OverviewPeriod,
  now: Date,
): Promise<OverviewData> {
  const timeZone = signedIn.user.timeZone;
  const bounds = overviewBounds(period, timeZone, now);
  // Reads need no plan; the gateway's answer for this request has it, `lite` grants the least otherwise.
  const identity = personIdentity(signedIn, requestId, signedIn.organizations?.current?.plan ?? 'lite');
  const options = { timeoutMs: readTimeoutMs };
  const span = ({ from, to }: Span) => ({ from: from.toISOString(), to: to.toISOString() });
  const [current, previous, leadsNow, leadsBefore, calls, leads] = await Promise.allSettled([
    ctx.bus.call(telephonyRpc.getOverview, identity, { ...span(bounds.current), time_zone: timeZone, interval: bounds.interval }, options),
    ctx.bus.call(telephonyRpc.getOverview, identity, { ...span(bounds.previous), time_zone: timeZone }, options),
    ctx.bus.call(leadsRpc.countLeads, identity, span(bounds.current), options),
    ctx.bus.call(leadsRpc.countLeads, identity, span(bounds.previous), options),
    ctx.bus.call(telephonyRpc.listCalls, identity, { limit: latestCount }, options),
    ctx.bus.call(leadsRpc.listLeads, identity, { limit: latestCount }, options),
  ]);
  const value = <T>(answer: PromiseSettledResult<T>, what: string): T | undefined => {
    if (answer.status === 'fulfilled') return answer.value;
    ctx.logger.warn({ err: answer.reason, what }, 'the overview shows the page without it');
    return undefined;
  };
  const data: OverviewData = { bounds };
  const callsNow = value(current, 'telephony overview');
  if (callsNow) data.calls = { current: callsNow, previous: value(previous, 'telephony overview of the previous period') };
  const leadCounts = value(leadsNow, 'leads counts');
  if (leadCounts) data.leads = { current: leadCounts, previous: value(leadsBefore, 'leads counts of the previous period') };
  const latestCalls = value(calls, 'latest calls');
  if (latestCalls) data.latestCalls = latestCalls.data;
  const latestLeads = value(leads, 'latest leads');
  if (latestLeads) data.latestLeads = latestLeads.data;
  if (signedIn.pendingApprovals !== undefined) data.pendingApprovals = signedIn.pendingApprovals;
  return data;
}
