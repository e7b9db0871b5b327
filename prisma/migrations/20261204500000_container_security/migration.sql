-- What every container of a project gets (issue 15 item 4): root or the host user, a disk budget per
-- trial, the nofile ulimit. Plain ADD COLUMNs (no table rebuild: dropping Project would cascade to its rows).

-- AlterTable
ALTER TABLE "Project" ADD COLUMN "runAsRoot" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Project" ADD COLUMN "diskBudgetBytes" BIGINT NOT NULL DEFAULT 10737418240;
ALTER TABLE "Project" ADD COLUMN "openFiles" INTEGER NOT NULL DEFAULT 8192;
