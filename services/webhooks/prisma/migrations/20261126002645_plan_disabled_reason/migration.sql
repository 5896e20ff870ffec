-- AlterEnum
ALTER TYPE "DisabledReason" ADD VALUE 'plan';
