-- AlterTable
ALTER TABLE "approval_channels" ADD COLUMN     "linked_by" TEXT;

-- CreateTable
CREATE TABLE "channel_link_codes" (
    "code_hash" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "org_name" TEXT NOT NULL,
    "kind" "ChannelKind" NOT NULL,
    "created_by" TEXT NOT NULL,
    "webhook_url" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "used_in" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_link_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateIndex
CREATE INDEX "channel_link_codes_expires_at_idx" ON "channel_link_codes"("expires_at");
