/*
  Warnings:

  - The primary key for the `audit_records` table will be changed. If it partially fails, the table could be left without primary key constraint.

*/
-- DropIndex
DROP INDEX "audit_records_created_at_idx";

-- DropIndex
DROP INDEX "audit_records_org_id_created_at_id_idx";

-- AlterTable
ALTER TABLE "audit_records" DROP CONSTRAINT "audit_records_pkey",
ADD CONSTRAINT "audit_records_pkey" PRIMARY KEY ("org_id", "created_at", "id");
