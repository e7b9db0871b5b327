-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Study" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "taskPrompt" TEXT NOT NULL,
    "testCommand" TEXT NOT NULL,
    "testFiles" TEXT NOT NULL DEFAULT '[]',
    "junitPath" TEXT,
    "snapshotId" TEXT,
    "environmentVersionId" TEXT,
    "imageId" TEXT,
    "imageDigest" TEXT,
    "state" TEXT NOT NULL DEFAULT 'preflight',
    "refusal" TEXT,
    "baselinePassed" INTEGER,
    "baselineFailed" INTEGER,
    "baselineSkipped" INTEGER,
    "baselineTotal" INTEGER,
    "baselineSource" TEXT,
    "baselineOk" BOOLEAN,
    "preflightExitCode" INTEGER,
    "preflightOutput" TEXT,
    "concurrency" INTEGER NOT NULL DEFAULT 1,
    "agentTimeoutSec" INTEGER NOT NULL DEFAULT 1800,
    "evalTimeoutSec" INTEGER NOT NULL DEFAULT 600,
    "createdBy" TEXT NOT NULL DEFAULT 'admin',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Study_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Study_snapshotId_fkey" FOREIGN KEY ("snapshotId") REFERENCES "Snapshot" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Study_environmentVersionId_fkey" FOREIGN KEY ("environmentVersionId") REFERENCES "EnvironmentVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Study" ("agentTimeoutSec", "baselinePassed", "baselineTotal", "concurrency", "createdAt", "createdBy", "environmentVersionId", "evalTimeoutSec", "finishedAt", "id", "imageDigest", "imageId", "junitPath", "projectId", "refusal", "snapshotId", "startedAt", "state", "taskPrompt", "testCommand", "testFiles", "title") SELECT "agentTimeoutSec", "baselinePassed", "baselineTotal", "concurrency", "createdAt", "createdBy", "environmentVersionId", "evalTimeoutSec", "finishedAt", "id", "imageDigest", "imageId", "junitPath", "projectId", "refusal", "snapshotId", "startedAt", "state", "taskPrompt", "testCommand", "testFiles", "title" FROM "Study";
DROP TABLE "Study";
ALTER TABLE "new_Study" RENAME TO "Study";
CREATE INDEX "Study_projectId_idx" ON "Study"("projectId");
CREATE TABLE "new_Trial" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "studyId" TEXT NOT NULL,
    "configurationId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "step" TEXT NOT NULL DEFAULT '',
    "verdictPassed" INTEGER,
    "verdictFailed" INTEGER,
    "verdictSkipped" INTEGER,
    "verdictTotal" INTEGER,
    "verdictSource" TEXT,
    "verdictOk" BOOLEAN,
    "commandsRun" INTEGER NOT NULL DEFAULT 0,
    "diffFiles" INTEGER,
    "diffInsertions" INTEGER,
    "diffDeletions" INTEGER,
    "workspaceId" TEXT,
    "workerId" TEXT,
    "enqueuedAt" DATETIME,
    "exitCode" INTEGER,
    "agentSeconds" REAL,
    "evalSeconds" REAL,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "reasoningTokens" INTEGER NOT NULL DEFAULT 0,
    "threadId" TEXT,
    "harnessVersion" TEXT,
    "containerId" TEXT,
    "committedImageId" TEXT,
    "workspacePath" TEXT,
    "error" TEXT,
    "queuedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Trial_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Trial_configurationId_fkey" FOREIGN KEY ("configurationId") REFERENCES "Configuration" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Trial" ("agentSeconds", "attempt", "cachedInputTokens", "committedImageId", "configurationId", "containerId", "error", "evalSeconds", "exitCode", "finishedAt", "harnessVersion", "id", "inputTokens", "outputTokens", "queuedAt", "reasoningTokens", "startedAt", "state", "step", "studyId", "threadId", "verdictFailed", "verdictPassed", "verdictSkipped", "verdictSource", "verdictTotal", "workspacePath") SELECT "agentSeconds", "attempt", "cachedInputTokens", "committedImageId", "configurationId", "containerId", "error", "evalSeconds", "exitCode", "finishedAt", "harnessVersion", "id", "inputTokens", "outputTokens", "queuedAt", "reasoningTokens", "startedAt", "state", "step", "studyId", "threadId", "verdictFailed", "verdictPassed", "verdictSkipped", "verdictSource", "verdictTotal", "workspacePath" FROM "Trial";
DROP TABLE "Trial";
ALTER TABLE "new_Trial" RENAME TO "Trial";
CREATE INDEX "Trial_studyId_idx" ON "Trial"("studyId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

