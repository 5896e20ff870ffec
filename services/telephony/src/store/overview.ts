import type { CallDirection, CallStatus, SmsStatus } from '@voice/proto';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** Calls of one (direction, status, outcome, answered), counted: a row of `call_quarters`, `call_hours` or `call_days`, or of raw calls. */
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

const quarterMs = 15 * 60 * 1000;
const hourMs = 4 * quarterMs;
const dayMs = 24 * hourMs;

/** Where a piece of a period is counted: the daily, hourly or quarter-hour roll-up, or the rows themselves. */
export type PieceSource = 'day' | 'hour' | 'quarter' | 'raw';

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

/** The roll-ups from the coarsest down, each unit a whole number of the next. */
const rollUps: ReadonlyArray<{ source: PieceSource; unitMs: number }> = [
  { source: 'day', unitMs: dayMs },
  { source: 'hour', unitMs: hourMs },
  { source: 'quarter', unitMs: quarterMs },
];

const unitOf = (source: PieceSource) => rollUps.find((rollUp) => rollUp.source === source)?.unitMs ?? quarterMs;

/** Roll-up rows read per tuple: the measure `cover` keeps low. */
const rowsOf = (pieces: PeriodPiece[]) =>
  pieces.reduce((rows, piece) => rows + (piece.to.getTime() - piece.from.getTime()) / unitOf(piece.source), 0);

/**
 * [from, to), both on quarter hours, as roll-up pieces of `sign`, from level `level` down: each unit of the
 * level that the range covers wholly is one row; one it covers in part is either its part in finer units,
 * or the whole unit less the rest in finer units, whichever reads fewer rows. (At the finest level every
 * unit is covered wholly, so the recursion ends there.)
 */
function cover(from: number, to: number, sign: 1 | -1, bucket: number, level: number): PeriodPiece[] {
  const pieces: PeriodPiece[] = [];
  const { source, unitMs } = rollUps[level] as (typeof rollUps)[number];
  for (let unit = Math.floor(from / unitMs) * unitMs; unit < to; unit += unitMs) {
    const coveredFrom = Math.max(unit, from);
    const coveredTo = Math.min(unit + unitMs, to);
    if (coveredFrom === unit && coveredTo === unit + unitMs) {
      add(pieces, source, unit, unit + unitMs, sign, bucket);
      continue;
    }
    const part = cover(coveredFrom, coveredTo, sign, bucket, level + 1);
    const flip = sign === 1 ? -1 : 1;
    const rest = [...cover(unit, coveredFrom, flip, bucket, level + 1), ...cover(coveredTo, unit + unitMs, flip, bucket, level + 1)];
    const chosen =
      1 + rowsOf(rest) < rowsOf(part) ? [{ source, from: new Date(unit), to: new Date(unit + unitMs), sign, bucket }, ...rest] : part;
    for (const piece of chosen) add(pieces, piece.source, piece.from.getTime(), piece.to.getTime(), piece.sign, bucket);
  }
  return pieces;
}

/**
 * Cuts a period into pieces the roll-ups count exactly, bucket by bucket (`starts`: where each bucket of a
 * series begins, the first being `from`; one bucket without a series). A bucket's minutes outside whole
 * quarter hours are counted from the rows: in practice only the last ones, up to `now`, since every zone's
 * midnight and hour begin on a UTC quarter hour. The rest is cut by `cover` into UTC days, hours and
 * quarter hours, added or taken away: a day of Paris (UTC+1) is its UTC day less its last hour plus the last
 * hour of the day before; a day of Kolkata (UTC+5:30) is its UTC day less 5 hours and 2 quarter hours, plus
 * as many of the day before. Sums of counts subtract exactly, so every piece stays exact, whatever the zone.
 */
export function splitPeriod(from: Date, to: Date, starts: readonly Date[] = [from]): PeriodPiece[] {
  const pieces: PeriodPiece[] = [];
  const bounds = [...starts.map((start) => start.getTime()), to.getTime()];
  for (let bucket = 0; bucket < bounds.length - 1; bucket++) {
    const start = bounds[bucket] as number;
    const end = bounds[bucket + 1] as number;
    if (start >= end) continue;
    const firstQuarter = Math.ceil(start / quarterMs) * quarterMs;
    const lastQuarter = Math.floor(end / quarterMs) * quarterMs;
    if (firstQuarter >= lastQuarter) {
      add(pieces, 'raw', start, end, 1, bucket);
      continue;
    }
    add(pieces, 'raw', start, firstQuarter, 1, bucket);
    for (const piece of cover(firstQuarter, lastQuarter, 1, bucket, 0)) {
      add(pieces, piece.source, piece.from.getTime(), piece.to.getTime(), piece.sign, bucket);
    }
    add(pieces, 'raw', lastQuarter, end, 1, bucket);
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
 * computes (migrations `console_data`, `overview_days`, `overview_quarters`); test/overview.int.test.ts holds them to the same numbers.
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
  const quarters = piecesOf(pieces, 'quarter');
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
      SELECT r.bucket, q.direction, q.status, q.outcome, q.answered, r.sign * q.calls, r.sign * q.duration_seconds, r.sign * q.with_duration,
             r.sign * q.cost_amount
      FROM unnest(${quarters.from}::timestamptz[], ${quarters.to}::timestamptz[], ${quarters.sign}::int[], ${quarters.bucket}::int[]) AS r(a, b, sign, bucket)
      CROSS JOIN LATERAL (SELECT * FROM call_quarters WHERE org_id = ${orgId} AND quarter >= r.a AND quarter < r.b OFFSET 0) AS q
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

/** An organization's messages created in [from, to), counted like `callTuples` (one bucket), from `sms_days`, `sms_hours`, `sms_quarters` and the rows. */
export async function smsTuples(prisma: PrismaClient, orgId: string, from: Date, to: Date): Promise<SmsTuple[]> {
  const pieces = splitPeriod(from, to);
  const days = piecesOf(pieces, 'day');
  const hours = piecesOf(pieces, 'hour');
  const quarters = piecesOf(pieces, 'quarter');
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
      SELECT q.direction, q.status, r.sign * q.messages, r.sign * q.segments, r.sign * q.cost_amount
      FROM unnest(${quarters.from}::timestamptz[], ${quarters.to}::timestamptz[], ${quarters.sign}::int[]) AS r(a, b, sign)
      CROSS JOIN LATERAL (SELECT * FROM sms_quarters WHERE org_id = ${orgId} AND quarter >= r.a AND quarter < r.b OFFSET 0) AS q
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
