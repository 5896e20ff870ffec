-- CreateEnum
CREATE TYPE "AuditActor" AS ENUM ('key', 'user');

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "created_by" TEXT,
ADD COLUMN     "display_suffix" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "name" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "audit_records" ADD COLUMN     "actor_type" "AuditActor" NOT NULL DEFAULT 'key';
