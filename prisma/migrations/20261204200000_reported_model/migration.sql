-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "reportedModel" TEXT;
