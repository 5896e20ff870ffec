// An organization's telephony at scale, seeded with COPY: `calls` calls and `sms` messages spread over the
// last `days` days for the measured organization, a tenth as many for another one, with the derived tables
// (status timelines, quarter-hour, hourly and daily roll-ups) computed once in SQL as the migrations backfill them. Used by
// the telephony bench (bench/console.ts) and the console's page bench (services/console/bench/pages.ts).
// Deterministic: every run seeds the same rows relative to `now`.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { callOutcomes } from '@voice/proto';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export const dayMs = 24 * 60 * 60 * 1000;

/** How many other parties the seeded traffic talks to, and the number of the n-th. */
export const contacts = 100_000;
export const contact = (n: number) => `+1415${String(2_000_000 + n).padStart(7, '0')}`;
/** The lead ids the seeded calls name (30% of them name one). */
export const seededLeadIds = Array.from({ length: 20_000 }, (_, i) => `lead_${String(i).padStart(20, '0')}`);
export const ourNumber = '+15005550006';

export interface VolumeOptions {
  /** The organization measured, and another whose rows must never be counted for it. */
  orgId: string;
  otherOrgId: string;
  calls: number;
  sms: number;
  days?: number;
  now?: number;
  /**
   * How the rows lie on disk. `created` (the default): in order of creation, as in a table that only grows
   * (each row's time is drawn within its own slice of the period, so times are uniform and ascending).
   * `random`: times drawn independently, so rows of one hour are spread over the whole table, one heap page
   * each: the worst case for reads of a time range (`BENCH_HEAP_ORDER=random`).
   */
  heapOrder?: 'created' | 'random';
}

export interface SeededVolume {
  seconds: number;
  /** Rows of the measured organization, and of the derived tables. */
  calls: number;
  sms: number;
  statusChanges: number;
  rollUpRows: number;
}

/**
 * Seeds the volume with a client connected to the database whose `telephony` schema is migrated. Bulk load
 * as a restore would: indexes dropped and rebuilt after, triggers off (session_replication_role), then the
 * derived tables computed once. The telephony service may be running, with no workers (the seeded queued
 * calls are not to be dialled).
 */
export async function seedTelephonyVolume(client: pg.Client, options: VolumeOptions): Promise<SeededVolume> {
  const days = options.days ?? 30;
  const now = options.now ?? Date.now();
  const span = days * dayMs;
  const ordered = (options.heapOrder ?? 'created') === 'created';
  /** When the i-th of `count` rows was created: one random draw either way, so the other columns stay the same. */
  const createdAt = (i: number, count: number) => (ordered ? now - span + ((i + random()) * span) / count : now - random() * span);
  const started = Date.now();
  await client.query('SET search_path TO telephony');

  // A deterministic generator, so every run seeds the same data.
  let seed = 0x2f6b_1c3d;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const iso = (ms: number) => new Date(ms).toISOString();
  const N = '\\N';

  /** COPY rows (arrays of text fields, `\N` for null) into a table, generated lazily. */
  async function copyRows(table: string, columns: string[], rows: () => Generator<string[]>) {
    const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
    const lines = (function* () {
      let chunk = '';
      for (const row of rows()) {
        chunk += `${row.join('\t')}\n`;
        if (chunk.length > 1 << 16) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    })();
    await pipeline(Readable.from(lines), stream);
  }

  const callColumns = [
    'id',
    'org_id',
    'direction',
    'from_number',
    'to_number',
    'lead_id',
    'status',
    'outcome',
    'end_reason',
    'source',
    'duration_seconds',
    'cost_amount',
    'cost_currency',
    'transcript',
    'summary',
    'metadata',
    'created_at',
    'started_at',
    'ended_at',
    'updated_at',
  ];
  const transcript = 'Agent: Hello, this is the assistant calling on behalf of the team. Is now a good time?\\nCallee: Sure, go ahead.';

  function* calls(count: number, orgId: string, prefix: string): Generator<string[]> {
    for (let i = 0; i < count; i++) {
      const created = createdAt(i, count);
      const inbound = random() < 1 / 3;
      const roll = random();
      const status =
        roll < 0.8
          ? 'completed'
          : roll < 0.86
            ? 'no_answer'
            : roll < 0.9
              ? 'busy'
              : roll < 0.93
                ? 'failed'
                : roll < 0.95
                  ? 'canceled'
                  : 'queued';
      const completed = status === 'completed';
      const duration = completed ? 20 + Math.floor(random() * 280) : status === 'queued' || status === 'canceled' ? null : 0;
      const startedAt = completed ? created + 8_000 : null;
      const ended = status === 'queued' ? null : created + 8_000 + (duration ?? 0) * 1000;
      const other = contact(Math.floor(random() * contacts));
      yield [
        `call_${prefix}${String(i).padStart(16, '0')}`,
        orgId,
        inbound ? 'inbound' : 'outbound',
        inbound ? other : ourNumber,
        inbound ? ourNumber : other,
        random() < 0.3 ? pick(seededLeadIds) : N,
        status,
        completed ? pick(callOutcomes) : N,
        status === 'queued' ? N : completed ? 'hangup' : status,
        inbound ? 'inbound' : 'api',
        duration === null ? N : String(duration),
        completed ? String(Math.ceil((duration ?? 0) / 60) * 2) : N,
        completed ? 'USD' : N,
        completed ? transcript : N,
        completed ? 'Contact was interested and asked for a proposal.' : N,
        '{}',
        iso(created),
        startedAt === null ? N : iso(startedAt),
        ended === null ? N : iso(ended),
        iso(ended ?? created),
      ];
    }
  }

  const smsColumns = [
    'id',
    'org_id',
    'direction',
    'from_number',
    'to_number',
    'body',
    'segments',
    'status',
    'source',
    'cost_amount',
    'cost_currency',
    'metadata',
    'created_at',
    'sent_at',
    'delivered_at',
    'updated_at',
  ];

  function* messages(count: number, orgId: string, prefix: string): Generator<string[]> {
    for (let i = 0; i < count; i++) {
      const created = createdAt(i, count);
      const inbound = random() < 0.4;
      const roll = random();
      const status = inbound ? 'received' : roll < 0.85 ? 'delivered' : roll < 0.92 ? 'sent' : roll < 0.96 ? 'undelivered' : 'failed';
      const other = contact(Math.floor(random() * contacts));
      const segments = 1 + Math.floor(random() * 2);
      yield [
        `sms_${prefix}${String(i).padStart(16, '0')}`,
        orgId,
        inbound ? 'inbound' : 'outbound',
        inbound ? other : ourNumber,
        inbound ? ourNumber : other,
        'Thanks for your time today, here is the link we talked about.',
        String(segments),
        status,
        inbound ? 'inbound' : 'api',
        inbound ? N : String(segments),
        inbound ? N : 'USD',
        '{}',
        iso(created),
        status === 'failed' ? N : iso(created + 1000),
        status === 'delivered' ? iso(created + 3000) : N,
        iso(created + 3000),
      ];
    }
  }

  const indexes = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'telephony' AND tablename IN ('calls', 'sms', 'call_status_changes')
       AND indexname NOT LIKE '%_pkey'`,
  );
  for (const index of indexes.rows) await client.query(`DROP INDEX telephony."${index.indexname}"`);
  await client.query('SET session_replication_role = replica');
  await copyRows('calls', callColumns, () => calls(options.calls, options.orgId, 'a'));
  await copyRows('calls', callColumns, () => calls(Math.round(options.calls / 10), options.otherOrgId, 'b'));
  await copyRows('sms', smsColumns, () => messages(options.sms, options.orgId, 'a'));
  await copyRows('sms', smsColumns, () => messages(Math.round(options.sms / 10), options.otherOrgId, 'b'));
  await client.query(`
    INSERT INTO call_status_changes (call_id, org_id, status, at)
    SELECT c.id, c.org_id, s.status, s.at FROM calls c
    CROSS JOIN LATERAL (VALUES
      (1, CASE WHEN c.direction = 'inbound' THEN 'ringing' ELSE 'queued' END::"CallStatus", c.created_at),
      (2, CASE WHEN c.direction = 'outbound' AND c.status NOT IN ('queued', 'canceled') THEN 'ringing'::"CallStatus" END, c.created_at + interval '2 seconds'),
      (3, CASE WHEN c.started_at IS NOT NULL THEN 'in_progress'::"CallStatus" END, c.started_at),
      (4, CASE WHEN c.status NOT IN ('queued', 'ringing', 'in_progress') THEN c.status END, c.ended_at)
    ) AS s(step, status, at)
    WHERE s.status IS NOT NULL ORDER BY c.created_at, s.step`);
  // The quarter hours from the rows, as migration `overview_quarters` backfills them; each coarser roll-up
  // from the one below it (whole hours and days are sums of whole quarter hours).
  await client.query(`
    INSERT INTO call_quarters (org_id, quarter, direction, status, outcome, answered, calls, duration_seconds, with_duration, cost_amount)
    SELECT org_id, date_bin('15 minutes', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), direction, status, coalesce(outcome::text, 'none'),
           started_at IS NOT NULL, count(*), coalesce(sum(duration_seconds), 0), count(duration_seconds), coalesce(sum(cost_amount), 0)
    FROM calls GROUP BY 1, 2, 3, 4, 5, 6`);
  await client.query(`
    INSERT INTO sms_quarters (org_id, quarter, direction, status, messages, segments, cost_amount)
    SELECT org_id, date_bin('15 minutes', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'), direction, status, count(*), sum(segments),
           coalesce(sum(cost_amount), 0)
    FROM sms GROUP BY 1, 2, 3, 4`);
  for (const [finer, unit] of [
    ['quarter', 'hour'],
    ['hour', 'day'],
  ] as const) {
    await client.query(`
      INSERT INTO call_${unit}s (org_id, ${unit}, direction, status, outcome, answered, calls, duration_seconds, with_duration, cost_amount)
      SELECT org_id, date_trunc('${unit}', ${finer}, 'UTC'), direction, status, outcome, answered, sum(calls), sum(duration_seconds),
             sum(with_duration), sum(cost_amount)
      FROM call_${finer}s GROUP BY 1, 2, 3, 4, 5, 6`);
    await client.query(`
      INSERT INTO sms_${unit}s (org_id, ${unit}, direction, status, messages, segments, cost_amount)
      SELECT org_id, date_trunc('${unit}', ${finer}, 'UTC'), direction, status, sum(messages), sum(segments), sum(cost_amount)
      FROM sms_${finer}s GROUP BY 1, 2, 3, 4`);
  }
  await client.query('SET session_replication_role = origin');
  await client.query("SET maintenance_work_mem = '256MB'");
  for (const index of indexes.rows) await client.query(index.indexdef);
  await client.query(
    'ANALYZE calls; ANALYZE sms; ANALYZE call_status_changes; ANALYZE call_quarters; ANALYZE sms_quarters; ANALYZE call_hours; ANALYZE sms_hours; ANALYZE call_days; ANALYZE sms_days',
  );
  const count = async (sql: string, values: unknown[] = []) => Number((await client.query(sql, values)).rows[0].count);
  return {
    seconds: (Date.now() - started) / 1000,
    calls: await count('SELECT count(*) FROM calls WHERE org_id = $1', [options.orgId]),
    sms: await count('SELECT count(*) FROM sms WHERE org_id = $1', [options.orgId]),
    statusChanges: await count('SELECT count(*) FROM call_status_changes'),
    rollUpRows: await count(
      'SELECT (SELECT count(*) FROM call_quarters) + (SELECT count(*) FROM call_hours) + (SELECT count(*) FROM call_days) AS count',
    ),
  };
}
