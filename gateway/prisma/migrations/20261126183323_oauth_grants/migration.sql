-- CreateEnum
CREATE TYPE "KeyKind" AS ENUM ('key', 'grant');

-- AlterEnum
ALTER TYPE "AuditActor" ADD VALUE 'grant';

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "client_id" TEXT,
ADD COLUMN     "kind" "KeyKind" NOT NULL DEFAULT 'key',
ALTER COLUMN "hash" DROP NOT NULL;

-- CreateTable
CREATE TABLE "oauth_access_tokens" (
    "hash" TEXT NOT NULL,
    "grant_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_access_tokens_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "oauth_access_tokens_grant_id_idx" ON "oauth_access_tokens"("grant_id");

-- CreateIndex
CREATE INDEX "oauth_access_tokens_expires_at_idx" ON "oauth_access_tokens"("expires_at");

-- AddForeignKey
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "oauth_access_tokens_grant_id_fkey" FOREIGN KEY ("grant_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
