-- CreateEnum
CREATE TYPE "CallDirection" AS ENUM ('inbound', 'outbound');

-- CreateEnum
CREATE TYPE "CallStatus" AS ENUM ('queued', 'ringing', 'in_progress', 'completed', 'failed', 'canceled', 'no_answer', 'busy');

-- CreateEnum
CREATE TYPE "CallOutcome" AS ENUM ('qualified_lead', 'booked', 'message_taken', 'not_interested', 'voicemail', 'wrong_number', 'spam');

-- CreateEnum
CREATE TYPE "CallSource" AS ENUM ('api', 'mcp', 'inbound', 'sequence');

-- CreateEnum
CREATE TYPE "SmsStatus" AS ENUM ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received', 'blocked_dnc', 'canceled');

-- CreateEnum
CREATE TYPE "DncChannel" AS ENUM ('voice', 'sms', 'all');

-- CreateEnum
CREATE TYPE "DncSource" AS ENUM ('manual', 'api', 'mcp', 'sms_stop', 'import');

-- CreateTable
CREATE TABLE "calls" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "direction" "CallDirection" NOT NULL,
    "from_number" TEXT NOT NULL,
    "to_number" TEXT NOT NULL,
    "lead_id" TEXT,
    "status" "CallStatus" NOT NULL,
    "outcome" "CallOutcome",
    "end_reason" TEXT,
    "source" "CallSource" NOT NULL,
    "duration_seconds" INTEGER,
    "cost_amount" INTEGER,
    "cost_currency" TEXT,
    "recording_url" TEXT,
    "transcript" TEXT,
    "summary" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "carrier_call_id" TEXT,
    "dial_attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "workspace_id" TEXT,
    "direction" "CallDirection" NOT NULL,
    "from_number" TEXT NOT NULL,
    "to_number" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "segments" INTEGER NOT NULL,
    "status" "SmsStatus" NOT NULL,
    "error_code" TEXT,
    "error_message" TEXT,
    "lead_id" TEXT,
    "source" "CallSource" NOT NULL,
    "cost_amount" INTEGER,
    "cost_currency" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "carrier_message_id" TEXT,
    "send_attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sms_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dnc_entries" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "channel" "DncChannel" NOT NULL,
    "reason" TEXT,
    "source" "DncSource" NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dnc_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "calls_org_id_created_at_id_idx" ON "calls"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "calls_org_id_direction_created_at_id_idx" ON "calls"("org_id", "direction", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "calls_org_id_outcome_created_at_id_idx" ON "calls"("org_id", "outcome", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "calls_org_id_status_created_at_id_idx" ON "calls"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "calls_org_id_lead_id_created_at_id_idx" ON "calls"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "calls_carrier_call_id_idx" ON "calls"("carrier_call_id");

-- CreateIndex
CREATE INDEX "calls_from_number_to_number_created_at_idx" ON "calls"("from_number", "to_number", "created_at" DESC);

-- CreateIndex
CREATE INDEX "sms_org_id_created_at_id_idx" ON "sms"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_org_id_direction_created_at_id_idx" ON "sms"("org_id", "direction", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_org_id_status_created_at_id_idx" ON "sms"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_org_id_lead_id_created_at_id_idx" ON "sms"("org_id", "lead_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "sms_carrier_message_id_idx" ON "sms"("carrier_message_id");

-- CreateIndex
CREATE INDEX "sms_from_number_to_number_created_at_idx" ON "sms"("from_number", "to_number", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "dnc_entries_org_id_phone_channel_key" ON "dnc_entries"("org_id", "phone", "channel");

-- CreateIndex
CREATE INDEX "dnc_entries_org_id_created_at_id_idx" ON "dnc_entries"("org_id", "created_at" DESC, "id" DESC);
