import type { CallDirection, CallStatus, SmsStatus } from '@voice/proto';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** Calls of one (direction, status, outcome, answered), counted: a row of `call_hours` or `call_days`, or of raw calls. */
export interface CallTuple {
  /** Which bucket of the period (0 for the first, or the whole period without buckets). */
  bucket: number;
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
const dayMs = 24 * hourMs;

/** Where a piece of a period is counted: the daily roll-up, the hourly one, or the rows themselves. */
export type PieceSource = 'day' | 'hour' | 'raw';

/** A part of a period, [from, to), counted from one source into one bucket, added (1) or taken away (-1). */
export interface PeriodPiece {
  source: PieceSource;
  from: Date;
  to: Date;
  sign: 1 | -1;
  bucket: number;
}

function add(pieces: PeriodPiece[], source: PieceSource, from: number, to: number, sign: 1 | -1, bucket: number) {
  if (from >= to) return;
  const last = pieces.at(-1);
  if (last && last.source === source && last.sign === sign && last.bucket === bucket && last.to.getTime() === from) {
    last.to = new Date(to);
    return;
  }
  pieces.push({ source, from: new Date(from), to: new Date(to), sign, bucket });
}

/**
 * Cuts a period into pieces the roll-ups count exactly, bucket by bucket (`starts`: where each bucket of a
 * series begins, the first being `from`; one bucket without a series). A bucket's partial hours at its
 * edges (a half-hour zone's midnight, `now`) are counted from the rows. Its whole hours are counted per UTC
 * day: a UTC day wholly inside is one daily row; a UTC day it covers for k hours is k hourly rows, or, when
 * fewer rows, the daily row less the hours it does not cover (a day of Paris, UTC+1, is the UTC day less
 * its last hour, plus the last hour of the day before). Sums of counts subtract exactly, so every piece
 * stays exact, whatever the zone: the roll-ups are days in UTC, and a person's day is combined from days
 * and edge hours.
 */
export function splitPeriod(from: Date, to: Date, starts: readonly Date[] = [from]): PeriodPiece[] {
  const pieces: PeriodPiece[] = [];
  const bounds = [...starts.map((start) => start.getTime()), to.getTime()];
  for (let bucket = 0; bucket < bounds.length - 1; bucket++) {
    const start = bounds[bucket] as number;
    const end = bounds[bucket + 1] as number;
    if (start >= end) continue;
    const firstHour = Math.ceil(start / hourMs) * hourMs;
    const lastHour = Math.floor(end / hourMs) * hourMs;
    if (firstHour >= lastHour) {
      add(pieces, 'raw', start, end, 1, bucket);
      continue;
    }
    add(pieces, 'raw', start, firstHour, 1, bucket);
    for (let day = Math.floor(firstHour / dayMs) * dayMs; day < lastHour; day += dayMs) {
      const coveredFrom = Math.max(day, firstHour);
      const coveredTo = Math.min(day + dayMs, lastHour);
      const hours = (coveredTo - coveredFrom) / hourMs;
      if (hours === 24) add(pieces, 'day', day, day + dayMs, 1, bucket);
      else if (1 + (24 - hours) < hours) {
        add(pieces, 'day', day, day + dayMs, 1, bucket);
        add(pieces, 'hour', day, coveredFrom, -1, bucket);
        add(pieces, 'hour', coveredTo, day + dayMs, -1, bucket);
      } else add(pieces, 'hour', coveredFrom, coveredTo, 1, bucket);
    }
    add(pieces, 'raw', lastHour, end, 1, bucket);
  }
  return pieces;
}

/** The pieces of one source as parallel arrays, for `unnest` in SQL. */
function piecesOf(pieces: PeriodPiece[], source: PieceSource) {
  const mine = pieces.filter((piece) => piece.source === source);
  return {
    from: mine.map((piece) => piece.from.toISOString()),
    to: mine.map((piece) => piece.to.toISOString()),
    sign: mine.map((piece) => piece.sign),
    bucket: mine.map((piece) => piece.bucket),
  };
}

/**
 * An organization's calls created in [from, to), counted by tuple and bucket (`starts`, oldest first, the
 * first being `from`), from the pieces of `splitPeriod`. Each piece is one index range probe: the pieces are
 * unnested and each is joined LATERALly to its table (`OFFSET 0` keeps the planner from flattening it into a
 * join it could turn into a scan of the whole table). The raw rows' tuple is the one the roll-up trigger
 * computes (migrations `console_data`, `overview_days`); test/overview.int.test.ts holds them to the same numbers.
 */
export async function callTuples(
  prisma: PrismaClient,
  orgId: string,
  from: Date,
  to: Date,
  starts: readonly Date[] = [from],
): Promise<CallTuple[]> {
  const pieces = splitPeriod(from, to, starts);
  const days = piecesOf(pieces, 'day');
  const hours = piecesOf(pieces, 'hour');
  const raw = piecesOf(pieces, 'raw');
  const rows = await prisma.$queryRaw<
    Array<
      Omit<CallTuple, 'bucket' | 'calls' | 'durationSeconds' | 'withDuration' | 'costAmount'> &
        Record<'bucket' | 'calls' | 'duration' | 'timed' | 'cost', bigint>
    >
  >(Prisma.sql`
    SELECT bucket::int8, direction, status, outcome, answered, sum(calls)::int8 AS calls, sum(duration_seconds)::int8 AS duration,
           sum(with_duration)::int8 AS timed, sum(cost_amount)::int8 AS cost
    FROM (
      SELECT r.bucket, d.direction, d.status, d.outcome, d.answered, r.sign * d.calls AS calls, r.sign * d.duration_seconds AS duration_seconds,
             r.sign * d.with_duration AS with_duration, r.sign * d.cost_amount AS cost_amount
      FROM unnest(${days.from}::timestamptz[], ${days.to}::timestamptz[], ${days.sign}::int[], ${days.bucket}::int[]) AS r(a, b, sign, bucket)
      CROSS JOIN LATERAL (SELECT * FROM call_days WHERE org_id = ${orgId} AND day >= r.a AND day < r.b OFFSET 0) AS d
      UNION ALL
      SELECT r.bucket, h.direction, h.status, h.outcome, h.answered, r.sign * h.calls, r.sign * h.duration_seconds, r.sign * h.with_duration,
             r.sign * h.cost_amount
      FROM unnest(${hours.from}::timestamptz[], ${hours.to}::timestamptz[], ${hours.sign}::int[], ${hours.bucket}::int[]) AS r(a, b, sign, bucket)
      CROSS JOIN LATERAL (SELECT * FROM call_hours WHERE org_id = ${orgId} AND hour >= r.a AND hour < r.b OFFSET 0) AS h
      UNION ALL
      SELECT r.bucket, c.direction, c.status, coalesce(c.outcome::text, 'none'), c.started_at IS NOT NULL, 1, coalesce(c.duration_seconds, 0),
             (c.duration_seconds IS NOT NULL)::int, coalesce(c.cost_amount, 0)
      FROM unnest(${raw.from}::timestamptz[], ${raw.to}::timestamptz[], ${raw.bucket}::int[]) AS r(a, b, bucket)
      CROSS JOIN LATERAL (
        SELECT direction, status, outcome, started_at, duration_seconds, cost_amount FROM calls
        WHERE org_id = ${orgId} AND created_at >= r.a AND created_at < r.b OFFSET 0
      ) AS c
    ) AS counted
    GROUP BY 1, 2, 3, 4, 5`);
  return rows.map((row) => ({
    bucket: Number(row.bucket),
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

/** An organization's messages created in [from, to), counted like `callTuples` (one bucket), from `sms_days`, `sms_hours` and the rows. */
export async function smsTuples(prisma: PrismaClient, orgId: string, from: Date, to: Date): Promise<SmsTuple[]> {
  const pieces = splitPeriod(from, to);
  const days = piecesOf(pieces, 'day');
  const hours = piecesOf(pieces, 'hour');
  const raw = piecesOf(pieces, 'raw');
  const rows = await prisma.$queryRaw<
    Array<Pick<SmsTuple, 'direction' | 'status'> & Record<'messages' | 'segments' | 'cost', bigint>>
  >(Prisma.sql`
    SELECT direction, status, sum(messages)::int8 AS messages, sum(segments)::int8 AS segments, sum(cost_amount)::int8 AS cost
    FROM (
      SELECT d.direction, d.status, r.sign * d.messages AS messages, r.sign * d.segments AS segments, r.sign * d.cost_amount AS cost_amount
      FROM unnest(${days.from}::timestamptz[], ${days.to}::timestamptz[], ${days.sign}::int[]) AS r(a, b, sign)
      CROSS JOIN LATERAL (SELECT * FROM sms_days WHERE org_id = ${orgId} AND day >= r.a AND day < r.b OFFSET 0) AS d
      UNION ALL
      SELECT h.direction, h.status, r.sign * h.messages, r.sign * h.segments, r.sign * h.cost_amount
      FROM unnest(${hours.from}::timestamptz[], ${hours.to}::timestamptz[], ${hours.sign}::int[]) AS r(a, b, sign)
      CROSS JOIN LATERAL (SELECT * FROM sms_hours WHERE org_id = ${orgId} AND hour >= r.a AND hour < r.b OFFSET 0) AS h
      UNION ALL
      SELECT s.direction, s.status, 1, s.segments, coalesce(s.cost_amount, 0)
      FROM unnest(${raw.from}::timestamptz[], ${raw.to}::timestamptz[]) AS r(a, b)
      CROSS JOIN LATERAL (
        SELECT direction, status, segments, cost_amount FROM sms WHERE org_id = ${orgId} AND created_at >= r.a AND created_at < r.b OFFSET 0
      ) AS s
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
