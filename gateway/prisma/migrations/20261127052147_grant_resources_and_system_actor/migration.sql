-- AlterEnum
ALTER TYPE "AuditActor" ADD VALUE 'system';

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "resource" TEXT;

-- AlterTable
ALTER TABLE "audit_records" ADD COLUMN     "reason" TEXT;

-- AlterTable
ALTER TABLE "oauth_access_tokens" ADD COLUMN     "resource" TEXT;
