-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "environmentVersionId" TEXT,
    "kind" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'private',
    "harness" TEXT,
    "model" TEXT,
    "reasoningEffort" TEXT,
    "title" TEXT NOT NULL DEFAULT '',
    "startedBy" TEXT NOT NULL DEFAULT '',
    "image" TEXT NOT NULL DEFAULT '',
    "workspaceId" TEXT,
    "fromTrialId" TEXT,
    "runToken" TEXT,
    "threadId" TEXT,
    "containerId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'starting',
    "reason" TEXT,
    "columns" INTEGER NOT NULL DEFAULT 120,
    "rows" INTEGER NOT NULL DEFAULT 32,
    "leaseExpiresAt" DATETIME,
    "lastActivityAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "savedVersionId" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "reasoningTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    CONSTRAINT "Session_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Session_environmentVersionId_fkey" FOREIGN KEY ("environmentVersionId") REFERENCES "EnvironmentVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Session" ("cachedInputTokens", "containerId", "createdAt", "endedAt", "environmentVersionId", "harness", "id", "inputTokens", "kind", "outputTokens", "projectId", "reasoningTokens", "state", "threadId", "title") SELECT "cachedInputTokens", "containerId", "createdAt", "endedAt", "environmentVersionId", "harness", "id", "inputTokens", "kind", "outputTokens", "projectId", "reasoningTokens", "state", "threadId", "title" FROM "Session";
DROP TABLE "Session";
ALTER TABLE "new_Session" RENAME TO "Session";
CREATE INDEX "Session_projectId_idx" ON "Session"("projectId");
CREATE INDEX "Session_state_idx" ON "Session"("state");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
