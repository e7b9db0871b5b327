-- AlterTable
ALTER TABLE "Trial" ADD COLUMN "workspaceKind" TEXT;
