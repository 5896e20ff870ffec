-- CreateEnum
CREATE TYPE "Mode" AS ENUM ('live', 'test');

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "mode" "Mode" NOT NULL DEFAULT 'live';
