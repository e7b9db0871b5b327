-- AlterTable
ALTER TABLE "ApplyRecord" ADD COLUMN "error" TEXT;
ALTER TABLE "ApplyRecord" ADD COLUMN "planHash" TEXT;
ALTER TABLE "ApplyRecord" ADD COLUMN "snapshotId" TEXT;
ALTER TABLE "ApplyRecord" ADD COLUMN "workspaceId" TEXT;
