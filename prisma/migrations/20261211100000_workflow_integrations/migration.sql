-- Issue 28: follow-up attempts with review feedback, results as git branches, environments from devcontainer.json

-- A follow-up trial: the trial it continued, and the feedback it was sent
ALTER TABLE "Trial" ADD COLUMN "parentTrialId" TEXT REFERENCES "Trial" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Trial" ADD COLUMN "feedback" TEXT;
CREATE INDEX "Trial_parentTrialId_idx" ON "Trial"("parentTrialId");

-- The project's git HEAD when the study's snapshot was taken (the base of "Apply as a branch")
ALTER TABLE "Study" ADD COLUMN "snapshotCommit" TEXT;

-- What a devcontainer.json gave an environment version
ALTER TABLE "EnvironmentVersion" ADD COLUMN "devcontainer" TEXT;

CREATE TABLE "ReviewComment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "trialId" TEXT NOT NULL,
    "path" TEXT,
    "startLine" INTEGER,
    "endLine" INTEGER,
    "body" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "sentInTrial" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ReviewComment_trialId_fkey" FOREIGN KEY ("trialId") REFERENCES "Trial" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "ReviewComment_trialId_createdAt_idx" ON "ReviewComment"("trialId", "createdAt");

CREATE TABLE "ResultBranch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "projectId" TEXT NOT NULL,
    "trialId" TEXT,
    "name" TEXT NOT NULL,
    "commit" TEXT NOT NULL,
    "baseCommit" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "remote" TEXT,
    "pushedAt" DATETIME,
    "removedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ResultBranch_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "ResultBranch_projectId_createdAt_idx" ON "ResultBranch"("projectId", "createdAt");
