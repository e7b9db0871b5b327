-- AlterTable
ALTER TABLE "Configuration" ADD COLUMN "derivedFrom" INTEGER;

-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "outcome" TEXT;

-- CreateTable
CREATE TABLE "TrialAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "trialId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "configuration" INTEGER NOT NULL,
    "harness" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "reasoningEffort" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL,
    "outcome" TEXT,
    "error" TEXT,
    "verdictPassed" INTEGER,
    "verdictFailed" INTEGER,
    "verdictSkipped" INTEGER,
    "verdictTotal" INTEGER,
    "verdictSource" TEXT,
    "verdictOk" BOOLEAN,
    "exitCode" INTEGER,
    "agentSeconds" REAL,
    "evalSeconds" REAL,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "reasoningTokens" INTEGER NOT NULL DEFAULT 0,
    "commandsRun" INTEGER NOT NULL DEFAULT 0,
    "workspaceId" TEXT,
    "committedImageId" TEXT,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "retriedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retriedBy" TEXT NOT NULL DEFAULT 'admin',
    CONSTRAINT "TrialAttempt_trialId_fkey" FOREIGN KEY ("trialId") REFERENCES "Trial" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "TrialAttempt_trialId_attempt_key" ON "TrialAttempt"("trialId", "attempt");
