-- AlterTable
ALTER TABLE "Study" ADD COLUMN "chosenAt" DATETIME;
ALTER TABLE "Study" ADD COLUMN "chosenBy" TEXT;
ALTER TABLE "Study" ADD COLUMN "chosenNote" TEXT;
ALTER TABLE "Study" ADD COLUMN "chosenTrialId" TEXT;

-- AlterTable
ALTER TABLE "ApplyRecord" ADD COLUMN "undoOf" TEXT;

-- CreateIndex
CREATE INDEX "ApplyRecord_projectId_createdAt_idx" ON "ApplyRecord"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "ApplyRecord_undoOf_idx" ON "ApplyRecord"("undoOf");
