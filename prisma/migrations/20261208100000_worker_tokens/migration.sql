-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "imageWorker" TEXT;
ALTER TABLE "Trial" ADD COLUMN "imageHost" TEXT;

-- CreateTable
CREATE TABLE "WorkerToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "WorkerToken_tokenHash_key" ON "WorkerToken"("tokenHash");
