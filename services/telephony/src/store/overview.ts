import type { CallDirection, CallStatus, SmsStatus } from '@voice/proto';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** Calls of one (direction, status, outcome, answered), counted: a row of `call_hours`, or of raw calls. */
export interface CallTuple {
  direction: CallDirection;
  status: CallStatus;
  /** The outcome, or `none`. */
  outcome: string;
  answered: boolean;
  calls: number;
  durationSeconds: number;
  withDuration: number;
  costAmount: number;
}

export interface SmsTuple {
  direction: CallDirection;
  status: SmsStatus;
  messages: number;
  segments: number;
  costAmount: number;
}

const hourMs = 60 * 60 * 1000;

/**
 * Splits [from, to) into the whole UTC hours the roll-ups answer and the partial hours at its edges,
 * which are counted from the rows themselves (at most two hours of them), so any period is exact to the
 * millisecond, `now` included. An empty range is [t, t).
 */
export function splitHours(from: Date, to: Date) {
  const firstHour = new Date(Math.ceil(from.getTime() / hourMs) * hourMs);
  const lastHour = new Date(Math.floor(to.getTime() / hourMs) * hourMs);
  if (firstHour >= lastHour) return { hours: [to, to], head: [from, to], tail: [to, to] } as const;
  return { hours: [firstHour, lastHour], head: [from, firstHour], tail: [lastHour, to] } as const;
}

/**
 * An organization's calls created in [from, to), counted by tuple: `call_hours` for the whole hours, the
 * calls themselves at the edges. The raw rows' tuple is the one the roll-up trigger computes (migration
 * `console_data`); test/overview.int.test.ts holds the two to the same numbers.
 */
export async function callTuples(prisma: PrismaClient, orgId: string, from: Date, to: Date): Promise<CallTuple[]> {
  const { hours, head, tail } = splitHours(from, to);
  const rows = await prisma.$queryRaw<
    Array<
      Omit<CallTuple, 'calls' | 'durationSeconds' | 'withDuration' | 'costAmount'> & Record<'calls' | 'duration' | 'timed' | 'cost', bigint>
    >
  >(Prisma.sql`
    SELECT direction, status, outcome, answered, sum(calls)::int8 AS calls, sum(duration_seconds)::int8 AS duration,
           sum(with_duration)::int8 AS timed, sum(cost_amount)::int8 AS cost
    FROM (
      SELECT direction, status, outcome, answered, calls, duration_seconds, with_duration, cost_amount
      FROM call_hours WHERE org_id = ${orgId} AND hour >= ${hours[0]} AND hour < ${hours[1]}
      UNION ALL
      SELECT direction, status, coalesce(outcome::text, 'none'), started_at IS NOT NULL, 1, coalesce(duration_seconds, 0),
             (duration_seconds IS NOT NULL)::int, coalesce(cost_amount, 0)
      FROM calls
      WHERE org_id = ${orgId}
        AND ((created_at >= ${head[0]} AND created_at < ${head[1]}) OR (created_at >= ${tail[0]} AND created_at < ${tail[1]}))
    ) AS counted
    GROUP BY 1, 2, 3, 4`);
  return rows.map((row) => ({
    direction: row.direction,
    status: row.status,
    outcome: row.outcome,
    answered: row.answered,
    calls: Number(row.calls),
    durationSeconds: Number(row.duration),
    withDuration: Number(row.timed),
    costAmount: Number(row.cost),
  }));
}

/** An organization's messages created in [from, to), counted like `callTuples`, from `sms_hours` and the edges. */
export async function smsTuples(prisma: PrismaClient, orgId: string, from: Date, to: Date): Promise<SmsTuple[]> {
  const { hours, head, tail } = splitHours(from, to);
  const rows = await prisma.$queryRaw<
    Array<Pick<SmsTuple, 'direction' | 'status'> & Record<'messages' | 'segments' | 'cost', bigint>>
  >(Prisma.sql`
    SELECT direction, status, sum(messages)::int8 AS messages, sum(segments)::int8 AS segments, sum(cost_amount)::int8 AS cost
    FROM (
      SELECT direction, status, messages, segments, cost_amount
      FROM sms_hours WHERE org_id = ${orgId} AND hour >= ${hours[0]} AND hour < ${hours[1]}
      UNION ALL
      SELECT direction, status, 1, segments, coalesce(cost_amount, 0)
      FROM sms
      WHERE org_id = ${orgId}
        AND ((created_at >= ${head[0]} AND created_at < ${head[1]}) OR (created_at >= ${tail[0]} AND created_at < ${tail[1]}))
    ) AS counted
    GROUP BY 1, 2`);
  return rows.map((row) => ({
    direction: row.direction,
    status: row.status,
    messages: Number(row.messages),
    segments: Number(row.segments),
    costAmount: Number(row.cost),
  }));
}
