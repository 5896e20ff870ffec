-- CreateEnum
CREATE TYPE "ApprovalStatus" AS ENUM ('pending', 'approved', 'rejected', 'expired', 'executed', 'failed');

-- CreateEnum
CREATE TYPE "ChannelKind" AS ENUM ('telegram', 'slack');

-- CreateTable
CREATE TABLE "approvals" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "arguments_digest" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "status" "ApprovalStatus" NOT NULL DEFAULT 'pending',
    "requested_by" TEXT NOT NULL,
    "requester" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" TEXT,
    "resolved_via" "ChannelKind",
    "result" JSONB,
    "error_code" TEXT,
    "error_message" TEXT,
    "deliveries" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approval_channels" (
    "org_id" TEXT NOT NULL,
    "kind" "ChannelKind" NOT NULL,
    "target" TEXT NOT NULL,
    "webhook_url" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approval_channels_pkey" PRIMARY KEY ("org_id","kind")
);

-- CreateIndex
CREATE INDEX "approvals_org_id_created_at_id_idx" ON "approvals"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "approvals_org_id_status_created_at_id_idx" ON "approvals"("org_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "approvals_status_expires_at_idx" ON "approvals"("status", "expires_at");
