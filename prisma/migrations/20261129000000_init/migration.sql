-- CreateTable
CREATE TABLE "Project" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "hostPath" TEXT NOT NULL,
    "networkMode" TEXT NOT NULL DEFAULT 'none',
    "cpus" REAL NOT NULL DEFAULT 2,
    "memoryBytes" BIGINT NOT NULL DEFAULT 4294967296,
    "swapBytes" BIGINT NOT NULL DEFAULT 0,
    "pids" INTEGER NOT NULL DEFAULT 512,
    "baseImage" TEXT,
    "defaultConfiguration" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "EnvironmentVersion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "imageTag" TEXT NOT NULL,
    "imageId" TEXT,
    "parentId" TEXT,
    "origin" TEXT NOT NULL,
    "command" TEXT,
    "status" TEXT NOT NULL DEFAULT 'building',
    "active" BOOLEAN NOT NULL DEFAULT false,
    "durationMs" INTEGER,
    "sizeBytes" BIGINT,
    "logPath" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "EnvironmentVersion_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "EnvironmentVersion_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "EnvironmentVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Snapshot" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "fileCount" INTEGER NOT NULL,
    "bytes" BIGINT NOT NULL,
    "skipped" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Snapshot_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "environmentVersionId" TEXT,
    "kind" TEXT NOT NULL,
    "harness" TEXT,
    "title" TEXT NOT NULL DEFAULT '',
    "threadId" TEXT,
    "containerId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'starting',
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "reasoningTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    CONSTRAINT "Session_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Session_environmentVersionId_fkey" FOREIGN KEY ("environmentVersionId") REFERENCES "EnvironmentVersion" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Study" (
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
    "state" TEXT NOT NULL DEFAULT 'draft',
    "refusal" TEXT,
    "baselinePassed" INTEGER,
    "baselineTotal" INTEGER,
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

-- CreateTable
CREATE TABLE "Configuration" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "studyId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "harness" TEXT NOT NULL DEFAULT 'codex',
    "model" TEXT NOT NULL,
    "reasoningEffort" TEXT NOT NULL DEFAULT 'medium',
    "instructions" TEXT NOT NULL DEFAULT '',
    "overrides" TEXT NOT NULL DEFAULT '[]',
    "command" TEXT,
    "repeats" INTEGER NOT NULL DEFAULT 1,
    CONSTRAINT "Configuration_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Trial" (
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

-- CreateTable
CREATE TABLE "EvaluationResult" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "trialId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "durationMs" REAL,
    "message" TEXT,
    CONSTRAINT "EvaluationResult_trialId_fkey" FOREIGN KEY ("trialId") REFERENCES "Trial" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EventLog" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "streamId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "projectId" TEXT,
    "studyId" TEXT,
    "trialId" TEXT,
    "sessionId" TEXT,
    "payload" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Artifact" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "sizeBytes" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "studyId" TEXT,
    "trialId" TEXT,
    "sessionId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Artifact_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Artifact_trialId_fkey" FOREIGN KEY ("trialId") REFERENCES "Trial" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Artifact_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ApplyRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "trialId" TEXT,
    "appliedBy" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "files" TEXT NOT NULL,
    "conflicts" TEXT NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ApplyRecord_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ViewerLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "label" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "Project_hostPath_key" ON "Project"("hostPath");

-- CreateIndex
CREATE INDEX "EnvironmentVersion_projectId_active_idx" ON "EnvironmentVersion"("projectId", "active");

-- CreateIndex
CREATE UNIQUE INDEX "EnvironmentVersion_projectId_version_key" ON "EnvironmentVersion"("projectId", "version");

-- CreateIndex
CREATE INDEX "Snapshot_projectId_idx" ON "Snapshot"("projectId");

-- CreateIndex
CREATE INDEX "Session_projectId_idx" ON "Session"("projectId");

-- CreateIndex
CREATE INDEX "Study_projectId_idx" ON "Study"("projectId");

-- CreateIndex
CREATE UNIQUE INDEX "Configuration_studyId_position_key" ON "Configuration"("studyId", "position");

-- CreateIndex
CREATE INDEX "Trial_studyId_idx" ON "Trial"("studyId");

-- CreateIndex
CREATE INDEX "EvaluationResult_trialId_idx" ON "EvaluationResult"("trialId");

-- CreateIndex
CREATE UNIQUE INDEX "EventLog_streamId_key" ON "EventLog"("streamId");

-- CreateIndex
CREATE INDEX "EventLog_studyId_id_idx" ON "EventLog"("studyId", "id");

-- CreateIndex
CREATE INDEX "EventLog_trialId_id_idx" ON "EventLog"("trialId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ViewerLink_tokenHash_key" ON "ViewerLink"("tokenHash");

