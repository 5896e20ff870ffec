-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('lite', 'starter', 'pro', 'enterprise');

-- CreateEnum
CREATE TYPE "KeyScope" AS ENUM ('read', 'read-write');

-- CreateEnum
CREATE TYPE "KeyStatus" AS ENUM ('active', 'revoked');

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan" "Plan" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "display_prefix" TEXT NOT NULL,
    "scope" "KeyScope" NOT NULL,
    "monthly_quota" INTEGER NOT NULL,
    "status" "KeyStatus" NOT NULL DEFAULT 'active',
    "lineage_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "rotated_to_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_records" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "request_id" TEXT NOT NULL,
    "client_address" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audit_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_org_id_created_at_id_idx" ON "api_keys"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_records_org_id_created_at_id_idx" ON "audit_records"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "audit_records_created_at_idx" ON "audit_records"("created_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
