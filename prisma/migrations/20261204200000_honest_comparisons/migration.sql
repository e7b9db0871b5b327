-- AlterTable
ALTER TABLE "Study" ADD COLUMN "budgetMoney" REAL;
ALTER TABLE "Study" ADD COLUMN "budgetTokens" INTEGER;
ALTER TABLE "Study" ADD COLUMN "limits" TEXT;
ALTER TABLE "Study" ADD COLUMN "rerunOf" TEXT;
ALTER TABLE "Study" ADD COLUMN "rerunOfTrial" TEXT;

-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "manifest" TEXT;

-- AlterTable
ALTER TABLE "TrialAttempt" ADD COLUMN "manifest" TEXT;

-- CreateTable
CREATE TABLE "ModelPrice" (
    "model" TEXT NOT NULL PRIMARY KEY,
    "inputPerMillion" REAL NOT NULL,
    "cachedInputPerMillion" REAL NOT NULL,
    "outputPerMillion" REAL NOT NULL,
    "reasoningPerMillion" REAL NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT NOT NULL DEFAULT 'admin'
);
