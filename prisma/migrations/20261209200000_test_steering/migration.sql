-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "testSteering" TEXT;

-- AlterTable
ALTER TABLE "TrialAttempt" ADD COLUMN "testSteering" TEXT;
