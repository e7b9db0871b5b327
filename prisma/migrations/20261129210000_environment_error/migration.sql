-- AlterTable
ALTER TABLE "EnvironmentVersion" ADD COLUMN "error" TEXT;

