-- AlterTable
ALTER TABLE "Session" ADD COLUMN "network" TEXT NOT NULL DEFAULT 'none';
