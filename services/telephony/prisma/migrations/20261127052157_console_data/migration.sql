-- The console's data: calls' status timelines, transcripts as turns, the hourly roll-ups behind the
-- overview, and the indexes of its searches. Prisma wrote the tables and indexes; the extension, the
-- triggers and the backfill below are written by hand.

-- Extensions are per database: in public, their objects qualified (packages/migrator/README.md).
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "transcript_turns" JSONB;

-- CreateTable
CREATE TABLE "call_status_changes" (
    "seq" BIGSERIAL NOT NULL,
    "call_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "status" "CallStatus" NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "call_status_changes_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "call_hours" (
    "org_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "CallStatus" NOT NULL,
    "outcome" TEXT NOT NULL,
    "answered" BOOLEAN NOT NULL,
    "calls" INTEGER NOT NULL,
    "duration_seconds" BIGINT NOT NULL,
    "with_duration" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "call_hours_pkey" PRIMARY KEY ("org_id","hour","direction","status","outcome","answered")
);

-- CreateTable
CREATE TABLE "sms_hours" (
    "org_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "status" "SmsStatus" NOT NULL,
    "messages" INTEGER NOT NULL,
    "segments" INTEGER NOT NULL,
    "cost_amount" BIGINT NOT NULL,

    CONSTRAINT "sms_hours_pkey" PRIMARY KEY ("org_id","hour","direction","status")
);

-- CreateIndex
CREATE INDEX "call_status_changes_call_id_seq_idx" ON "call_status_changes"("call_id", "seq");

-- CreateIndex
CREATE INDEX "calls_from_number_idx" ON "calls" USING GIN ("from_number" public.gin_trgm_ops);

-- CreateIndex
CREATE INDEX "calls_to_number_idx" ON "calls" USING GIN ("to_number" public.gin_trgm_ops);

-- CreateIndex
CREATE INDEX "sms_org_id_from_number_created_at_id_idx" ON "sms"("org_id", "from_number", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_org_id_to_number_created_at_id_idx" ON "sms"("org_id", "to_number", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_from_number_idx" ON "sms" USING GIN ("from_number" public.gin_trgm_ops);

-- CreateIndex
CREATE INDEX "sms_to_number_idx" ON "sms" USING GIN ("to_number" public.gin_trgm_ops);

-- A call's timeline: every status it reaches, written by Postgres in the transaction of the insert or
-- update that set it, so no code path (API, dialer, carrier callback, sweep) can change a status without
-- its record. The time is the row's updated_at, which Prisma sets on every change (created_at on insert).
CREATE FUNCTION "record_call_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "call_status_changes" ("call_id", "org_id", "status", "at")
  VALUES (NEW."id", NEW."org_id", NEW."status", CASE WHEN TG_OP = 'INSERT' THEN NEW."created_at" ELSE NEW."updated_at" END);
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER "calls_record_status" AFTER INSERT ON "calls" FOR EACH ROW EXECUTE FUNCTION "record_call_status"();
CREATE TRIGGER "calls_record_status_change" AFTER UPDATE OF "status" ON "calls" FOR EACH ROW
  WHEN (OLD."status" IS DISTINCT FROM NEW."status") EXECUTE FUNCTION "record_call_status"();

-- The roll-ups: each insert, update or delete of a call (message) takes its old tuple out of its hour and
-- puts its new one in, in the same transaction, so the counts never drift from the rows. Both deltas go
-- in one statement, grouped (old and new may be the same row) and ordered by key: two transactions
-- always lock roll-up rows in the same order, so they wait for each other but never deadlock.
-- The tuple of a row is stated here and in src/store/overview.ts (which counts raw rows at a period's
-- edges); test/overview.int.test.ts checks that the roll-up equals a count over the raw rows.
CREATE FUNCTION "roll_up_call"() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER "calls_roll_up" AFTER INSERT OR DELETE ON "calls" FOR EACH ROW EXECUTE FUNCTION "roll_up_call"();
CREATE TRIGGER "calls_roll_up_change" AFTER UPDATE ON "calls" FOR EACH ROW
  WHEN ((OLD."org_id", OLD."created_at", OLD."direction", OLD."status", OLD."outcome", OLD."started_at" IS NULL, OLD."duration_seconds", OLD."cost_amount")
        IS DISTINCT FROM (NEW."org_id", NEW."created_at", NEW."direction", NEW."status", NEW."outcome", NEW."started_at" IS NULL, NEW."duration_seconds", NEW."cost_amount"))
  EXECUTE FUNCTION "roll_up_call"();

CREATE FUNCTION "roll_up_sms"() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END
$$ SET search_path FROM CURRENT;

CREATE TRIGGER "sms_roll_up" AFTER INSERT OR DELETE ON "sms" FOR EACH ROW EXECUTE FUNCTION "roll_up_sms"();
CREATE TRIGGER "sms_roll_up_change" AFTER UPDATE ON "sms" FOR EACH ROW
  WHEN ((OLD."org_id", OLD."created_at", OLD."direction", OLD."status", OLD."segments", OLD."cost_amount")
        IS DISTINCT FROM (NEW."org_id", NEW."created_at", NEW."direction", NEW."status", NEW."segments", NEW."cost_amount"))
  EXECUTE FUNCTION "roll_up_sms"();

-- Existing rows: timelines as far as the rows tell them (queued or ringing at creation, answered at
-- started_at, the final status at ended_at), and the roll-ups counted once.
INSERT INTO "call_status_changes" ("call_id", "org_id", "status", "at")
SELECT c."id", c."org_id", s.status, s.at
FROM "calls" c
CROSS JOIN LATERAL (SELECT CASE WHEN c."direction" = 'inbound' THEN 'ringing' ELSE 'queued' END::"CallStatus" AS first) AS f
CROSS JOIN LATERAL (
  VALUES (1, f.first, c."created_at"),
         (2, CASE WHEN c."started_at" IS NOT NULL THEN 'in_progress'::"CallStatus" END, c."started_at"),
         (3, CASE WHEN c."status" <> f.first AND NOT (c."status" = 'in_progress' AND c."started_at" IS NOT NULL) THEN c."status" END,
             coalesce(c."ended_at", c."updated_at"))
) AS s(step, status, at)
WHERE s.status IS NOT NULL
ORDER BY c."id", s.step;

INSERT INTO "call_hours" ("org_id", "hour", "direction", "status", "outcome", "answered", "calls", "duration_seconds", "with_duration", "cost_amount")
SELECT "org_id", date_trunc('hour', "created_at", 'UTC'), "direction", "status", coalesce("outcome"::text, 'none'), "started_at" IS NOT NULL,
       count(*), coalesce(sum("duration_seconds"), 0), count("duration_seconds"), coalesce(sum("cost_amount"), 0)
FROM "calls" GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO "sms_hours" ("org_id", "hour", "direction", "status", "messages", "segments", "cost_amount")
SELECT "org_id", date_trunc('hour', "created_at", 'UTC'), "direction", "status", count(*), sum("segments"), coalesce(sum("cost_amount"), 0)
FROM "sms" GROUP BY 1, 2, 3, 4;
