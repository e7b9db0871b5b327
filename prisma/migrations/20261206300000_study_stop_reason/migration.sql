-- AlterTable
ALTER TABLE "Study" ADD COLUMN "stopReason" TEXT;
