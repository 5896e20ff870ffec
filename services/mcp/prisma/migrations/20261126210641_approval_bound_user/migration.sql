-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "bound_user_id" TEXT;
