-- The model gateway's policy (issue 15 item 1): a project's default token budget per run and whether
-- hosted tools and URL inputs pass the gateway in network mode none; a study's per-trial budget.
-- Plain ADD COLUMNs (no table rebuild: dropping Project would cascade to its rows).

-- AlterTable
ALTER TABLE "Project" ADD COLUMN "runTokenBudget" INTEGER NOT NULL DEFAULT 5000000;
ALTER TABLE "Project" ADD COLUMN "allowHostedTools" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Study" ADD COLUMN "tokenBudget" INTEGER;
