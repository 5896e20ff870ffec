-- Daily roll-ups beside the hourly ones (migration `console_data`): the same counts per UTC day, kept by the
-- same triggers in the same transaction, so a 30-day period reads about 30 rows per tuple instead of 720.
-- Prisma wrote the tables; the functions and the backfill below are written by hand.

-- CreateTable
CREATE TABLE "call_days" (
    "org_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "CallStatus" NOT NULL,
    "outcome" TEXT NOT NULL,
    "answered" BOOLEAN NOT NULL,
    "calls" INTEGER NOT NULL,
    "duration_seconds" BIGINT NOT NULL,
    "with_duration" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "call_days_pkey" PRIMARY KEY ("org_id","day","direction","status","outcome","answered")
);

-- CreateTable
CREATE TABLE "sms_days" (
    "org_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "SmsStatus" NOT NULL,
    "messages" INTEGER NOT NULL,
    "segments" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "sms_days_pkey" PRIMARY KEY ("org_id","day","direction","status")
);

-- No change to calls or messages may commit between the backfill below and the new triggers taking over:
-- writers wait for this migration's transaction (a few roll-up rows per organization and day to sum).
LOCK TABLE "calls", "sms" IN SHARE MODE;

-- Each change of a call now moves its tuple in its hour and in its day: two statements, hours first, so
-- every transaction takes roll-up row locks in the same order (by table, then by key) and none deadlock.
-- The tuple is the one of migration `console_data`; a day is date_trunc('day', created_at, 'UTC').
CREATE OR REPLACE FUNCTION "roll_up_call"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "call_hours" AS h ("org_id", "hour", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
  SELECT d.org_id, d.hour, d.direction, d.status, d.outcome, d.answered, sum(d.calls), sum(d.duration_seconds), sum(d.with_duration), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_trunc('hour', OLD."created_at", 'UTC') AS hour, OLD."direction" AS direction, OLD."status" AS status,
           coalesce(OLD."outcome"::text, 'none') AS outcome, OLD."started_at" IS NOT NULL AS answered, -1 AS calls,
           -coalesce(OLD."duration_seconds", 0)::bigint AS duration_seconds, -(OLD."duration_seconds" IS NOT NULL)::int AS with_duration,
           -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_trunc('hour', NEW."created_at", 'UTC'), NEW."direction", NEW."status",
           coalesce(NEW."outcome"::text, 'none'), NEW."started_at" IS NOT NULL, 1,
           coalesce(NEW."duration_seconds", 0)::bigint, (NEW."duration_seconds" IS NOT NULL)::int, coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("org_id", "hour", "direction", "status", "outcome", "answered") DO UPDATE SET
    "calls" = h."calls" + EXCLUDED."calls",
    "duration_seconds" = h."duration_seconds" + EXCLUDED."duration_seconds",
    "with_duration" = h."with_duration" + EXCLUDED."with_duration",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";

  INSERT INTO "call_days" AS h ("org_id", "day", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
  SELECT d.org_id, d.day, d.direction, d.status, d.outcome, d.answered, sum(d.calls), sum(d.duration_seconds), sum(d.with_duration), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_trunc('day', OLD."created_at", 'UTC') AS day, OLD."direction" AS direction, OLD."status" AS status,
           coalesce(OLD."outcome"::text, 'none') AS outcome, OLD."started_at" IS NOT NULL AS answered, -1 AS calls,
           -coalesce(OLD."duration_seconds", 0)::bigint AS duration_seconds, -(OLD."duration_seconds" IS NOT NULL)::int AS with_duration,
           -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_trunc('day', NEW."created_at", 'UTC'), NEW."direction", NEW."status",
           coalesce(NEW."outcome"::text, 'none'), NEW."started_at" IS NOT NULL, 1,
           coalesce(NEW."duration_seconds", 0)::bigint, (NEW."duration_seconds" IS NOT NULL)::int, coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("org_id", "day", "direction", "status", "outcome", "answered") DO UPDATE SET
    "calls" = h."calls" + EXCLUDED."calls",
    "duration_seconds" = h."duration_seconds" + EXCLUDED."duration_seconds",
    "with_duration" = h."with_duration" + EXCLUDED."with_duration",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE OR REPLACE FUNCTION "roll_up_sms"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "sms_hours" AS h ("org_id", "hour", "direction", "status", "messages", "segments", "cost_amount")
  SELECT d.org_id, d.hour, d.direction, d.status, sum(d.messages), sum(d.segments), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_trunc('hour', OLD."created_at", 'UTC') AS hour, OLD."direction" AS direction, OLD."status" AS status,
           -1 AS messages, -OLD."segments" AS segments, -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_trunc('hour', NEW."created_at", 'UTC'), NEW."direction", NEW."status", 1, NEW."segments", coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("org_id", "hour", "direction", "status") DO UPDATE SET
    "messages" = h."messages" + EXCLUDED."messages",
    "segments" = h."segments" + EXCLUDED."segments",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";

  INSERT INTO "sms_days" AS h ("org_id", "day", "direction", "status", "messages", "segments", "cost_amount")
  SELECT d.org_id, d.day, d.direction, d.status, sum(d.messages), sum(d.segments), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_trunc('day', OLD."created_at", 'UTC') AS day, OLD."direction" AS direction, OLD."status" AS status,
           -1 AS messages, -OLD."segments" AS segments, -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_trunc('day', NEW."created_at", 'UTC'), NEW."direction", NEW."status", 1, NEW."segments", coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("org_id", "day", "direction", "status") DO UPDATE SET
    "messages" = h."messages" + EXCLUDED."messages",
    "segments" = h."segments" + EXCLUDED."segments",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

-- Existing counts: the days summed from the hours (which equal the rows: test/overview.int.test.ts).
INSERT INTO "call_days" ("org_id", "day", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
SELECT "org_id", date_trunc('day', "hour", 'UTC'), "direction", "status", "outcome", "answered",
       sum("calls"), sum("duration_seconds"), sum("with_duration"), sum("cost_amount")
FROM "call_hours" GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO "sms_days" ("org_id", "day", "direction", "status", "messages", "segments", "cost_amount")
SELECT "org_id", date_trunc('day', "hour", 'UTC'), "direction", "status", sum("messages"), sum("segments"), sum("cost_amount")
FROM "sms_hours" GROUP BY 1, 2, 3, 4;
