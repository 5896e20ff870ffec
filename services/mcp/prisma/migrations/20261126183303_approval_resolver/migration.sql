-- Approvals decided in the console: `resolved_via` gets an enum of its own, with `console` beside the
-- channel kinds (channels stay telegram|slack). The column changes type in place, keeping every value
-- (Prisma's generated drop-and-add would have lost them).

-- CreateEnum
CREATE TYPE "ApprovalResolver" AS ENUM ('telegram', 'slack', 'console');

-- AlterTable
ALTER TABLE "approvals" ALTER COLUMN "resolved_via" TYPE "ApprovalResolver" USING ("resolved_via"::text::"ApprovalResolver");
