-- Project dependencies (issue 16): a project's edited dependency step (null = detected from its
-- manifests) and, per environment version, the installed dependencies it carries (the data-dir
-- folder trials mount, the outputs, and the manifest hashes they were installed from).
-- Plain ADD COLUMNs (no table rebuild: dropping Project would cascade to its rows).

-- AlterTable
ALTER TABLE "Project" ADD COLUMN "dependencyStep" TEXT;

-- AlterTable
ALTER TABLE "EnvironmentVersion" ADD COLUMN "dependencies" TEXT;
