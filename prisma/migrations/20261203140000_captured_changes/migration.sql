-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "capturedChanges" TEXT;

-- AlterTable
ALTER TABLE "TrialAttempt" ADD COLUMN "capturedChanges" TEXT;
