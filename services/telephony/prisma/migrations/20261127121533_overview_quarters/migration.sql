-- A third roll-up beside the hourly and daily ones: quarter hours. Every time zone's midnight and hour begin
-- on a UTC quarter hour (Kolkata +5:30, Kathmandu +5:45), so a person's day is whole UTC days, whole hours and
-- a few quarter hours at its ends, and only a period's last minutes up to now are counted from the rows
-- (src/store/overview.ts). Prisma wrote the tables; the functions and the backfill are written by hand.

-- CreateTable
CREATE TABLE "call_quarters" (
    "org_id" TEXT NOT NULL,
    "quarter" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "CallStatus" NOT NULL,
    "outcome" TEXT NOT NULL,
    "answered" BOOLEAN NOT NULL,
    "calls" INTEGER NOT NULL,
    "duration_seconds" BIGINT NOT NULL,
    "with_duration" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "call_quarters_pkey" PRIMARY KEY ("org_id","quarter","direction","status","outcome","answered")
);

-- CreateTable
CREATE TABLE "sms_quarters" (
    "org_id" TEXT NOT NULL,
    "quarter" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "SmsStatus" NOT NULL,
    "messages" INTEGER NOT NULL,
    "segments" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "sms_quarters_pkey" PRIMARY KEY ("org_id","quarter","direction","status")
);

-- No change to calls or messages may commit between the backfill below and the new functions taking over:
-- writers wait for this migration's transaction (one pass over the rows, grouped).
LOCK TABLE "calls", "sms" IN SHARE MODE;

-- The triggers stay; their functions now move a row's tuple in its quarter hour, its hour and its day, in
-- that order, so every transaction takes roll-up row locks in the same order and none deadlock. A quarter
-- hour is date_bin('15 minutes', created_at) from a UTC midnight. The hour and day statements are those of
-- migration `overview_days`.
CREATE OR REPLACE FUNCTION "roll_up_call"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "call_quarters" AS h ("org_id", "quarter", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
  SELECT d.org_id, d.quarter, d.direction, d.status, d.outcome, d.answered, sum(d.calls), sum(d.duration_seconds), sum(d.with_duration), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_bin('15 minutes', OLD."created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS quarter, OLD."direction" AS direction, OLD."status" AS status,
           coalesce(OLD."outcome"::text, 'none') AS outcome, OLD."started_at" IS NOT NULL AS answered, -1 AS calls,
           -coalesce(OLD."duration_seconds", 0)::bigint AS duration_seconds, -(OLD."duration_seconds" IS NOT NULL)::int AS with_duration,
           -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_bin('15 minutes', NEW."created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), NEW."direction", NEW."status",
           coalesce(NEW."outcome"::text, 'none'), NEW."started_at" IS NOT NULL, 1,
           coalesce(NEW."duration_seconds", 0)::bigint, (NEW."duration_seconds" IS NOT NULL)::int, coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("org_id", "quarter", "direction", "status", "outcome", "answered") DO UPDATE SET
    "calls" = h."calls" + EXCLUDED."calls",
    "duration_seconds" = h."duration_seconds" + EXCLUDED."duration_seconds",
    "with_duration" = h."with_duration" + EXCLUDED."with_duration",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";

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
  INSERT INTO "sms_quarters" AS h ("org_id", "quarter", "direction", "status", "messages", "segments", "cost_amount")
  SELECT d.org_id, d.quarter, d.direction, d.status, sum(d.messages), sum(d.segments), sum(d.cost_amount)
  FROM (
    SELECT OLD."org_id" AS org_id, date_bin('15 minutes', OLD."created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS quarter, OLD."direction" AS direction, OLD."status" AS status,
           -1 AS messages, -OLD."segments" AS segments, -coalesce(OLD."cost_amount", 0)::bigint AS cost_amount
    WHERE TG_OP IN ('UPDATE', 'DELETE')
    UNION ALL
    SELECT NEW."org_id", date_bin('15 minutes', NEW."created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), NEW."direction", NEW."status", 1, NEW."segments", coalesce(NEW."cost_amount", 0)::bigint
    WHERE TG_OP IN ('INSERT', 'UPDATE')
  ) AS d
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ("org_id", "quarter", "direction", "status") DO UPDATE SET
    "messages" = h."messages" + EXCLUDED."messages",
    "segments" = h."segments" + EXCLUDED."segments",
    "cost_amount" = h."cost_amount" + EXCLUDED."cost_amount";

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

-- Existing counts, once, from the rows.
INSERT INTO "call_quarters" ("org_id", "quarter", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
SELECT "org_id", date_bin('15 minutes', "created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "direction", "status", coalesce("outcome"::text, 'none'),
       "started_at" IS NOT NULL, count(*), coalesce(sum("duration_seconds"), 0), count("duration_seconds"), coalesce(sum("cost_amount"), 0)
FROM "calls" GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO "sms_quarters" ("org_id", "quarter", "direction", "status", "messages", "segments", "cost_amount")
SELECT "org_id", date_bin('15 minutes', "created_at", TIMESTAMPTZ '2000-01-01 00:00:00+00'), "direction", "status", count(*), sum("segments"),
       coalesce(sum("cost_amount"), 0)
FROM "sms" GROUP BY 1, 2, 3, 4;
