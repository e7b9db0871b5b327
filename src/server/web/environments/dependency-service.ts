import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import { enqueueBuild, findProject, type EnvironmentDeps } from "./environment-build-queue";
import type { EnvironmentVersionView } from "./environments.queries";
import type { SnapshotService } from "../snapshots/snapshot-service";
import { displayPath } from "../../../lib/files/byte-path";
import { readManifest } from "../../core/snapshots/manifest";
import { openSnapshotContent } from "../../core/snapshots/snapshot-content";
import { dataDirPaths } from "../../core/storage/data-dir";
import {
  dependencyStepSchema,
  type DependencyStatusView,
  type DependencyStep,
  type InstalledDependencies,
  type ManifestHash,
  type RuntimeRequest,
} from "../../../shared/dependency-schemas";
import { detectDependencyStep, outputFolderProblem } from "../../core/dependencies/dependency-detection";
import {
  declaredRuntimes,
  localTarballsOf,
  packageManagerOf,
  RUNTIME_FILES,
} from "../../core/dependencies/runtime-declarations";
import { dependencyWarning, manifestChanges, rootFiles } from "../../core/dependencies/dependency-status";
import { stepInstallsNothing } from "../../core/dependencies/dependency-needs";
import type { DependencyQueries } from "./dependencies.queries";
import { requireProjectFolder } from "../../core/storage/project-folder";

export interface DependencyServiceDeps extends EnvironmentDeps {
  dependencies: DependencyQueries;
  snapshots: Pick<SnapshotService, "create">;
}

/**
 * Copies the step's manifests out of a fresh snapshot into the dependency folder's tree (what the
 * step sees as /workspace) and returns their hashes; a manifest the snapshot lacks is recorded as null.
 */
async function stageManifests(options: {
  deps: DependencyServiceDeps;
  projectId: string;
  step: DependencyStep;
  tree: string;
}): Promise<ManifestHash[]> {
  const { deps, step, tree } = options;
  const snapshot = await deps.snapshots.create({ projectId: options.projectId });
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: snapshot.id });
  const byPath = new Map(manifest.entries.map((entry) => [displayPath(entry.path), entry]));
  const content = openSnapshotContent({ dataDir: deps.dataDir, manifest });
  const hashes: ManifestHash[] = [];
  try {
    await fs.mkdir(tree, { recursive: true });
    for (const file of step.manifests) {
      const entry = byPath.get(file);
      if (!entry || entry.type !== "file") {
        hashes.push({ path: file, sha256: null });
        continue;
      }
      const target = path.join(tree, file);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content.read(entry), { mode: entry.mode === "100755" ? 0o755 : 0o644 });
      hashes.push({ path: file, sha256: entry.sha256 });
    }
  } finally {
    content.close();
  }
  return hashes;
}

/** Files that may declare a runtime, read from the staged manifests (what the step itself will see). */
const DECLARING_FILES = new Set(["package.json", "pyproject.toml", "go.mod", ...RUNTIME_FILES]);

/** The runtimes the step's staged manifests declare. */
async function stagedRuntimes(tree: string, step: DependencyStep): Promise<RuntimeRequest[]> {
  const files: Record<string, string | undefined> = {};
  for (const file of step.manifests.filter((name) => DECLARING_FILES.has(name)))
    files[file] = await fs.readFile(path.join(tree, file), "utf8").catch(() => undefined);
  return declaredRuntimes(files);
}

/** The step that runs (edited, else detected from the root files) and whether it would install nothing. */
async function stepOf(deps: DependencyServiceDeps, projectId: string, hostPath: string) {
  const edited = await deps.dependencies.step(projectId);
  const packageJson = await fs.readFile(path.join(hostPath, "package.json"), "utf8").catch(() => undefined);
  const detected = detectDependencyStep(await rootFiles(hostPath), {
    packageManager: packageManagerOf(packageJson),
    localTarballs: localTarballsOf(packageJson),
  });
  const step = edited ?? detected;
  // an edited step runs its own command; only a detected one is known to install nothing
  return {
    edited,
    detected,
    step,
    nothingToInstall: !edited && !!step && (await stepInstallsNothing(hostPath, step)),
  };
}

/** A project's dependency step (web side): its status, editing it, and running it as an environment build. */
export function createDependencyService(deps: DependencyServiceDeps) {
  return {
    /** The step, the active version's installed dependencies, and whether the manifests moved on since. */
    async status(projectId: string): Promise<DependencyStatusView> {
      const project = await findProject(deps, projectId);
      const { edited, detected, step, nothingToInstall } = await stepOf(deps, project.id, project.hostPath);
      const active = await deps.environments.active(project.id);
      const installed = active?.status === "ready" ? active.dependencies : null;
      const changes = installed ? await manifestChanges({ root: project.hostPath, installed, step }) : [];
      return {
        step,
        detected,
        edited: edited !== null,
        installed: installed && active ? { ...installed, version: active.version } : null,
        changes,
        warning:
          active?.status === "ready" && !nothingToInstall ? dependencyWarning({ step, installed, changes }) : null,
        nothingToInstall,
      };
    },

    /** Saves an edited step (checked: output folders must be ones snapshots leave out), or null to use the detected one. */
    async setStep(input: { projectId: string; step: DependencyStep | null }): Promise<DependencyStatusView> {
      const project = await findProject(deps, input.projectId);
      const step = input.step ? dependencyStepSchema.parse(input.step) : null;
      for (const output of step?.outputs ?? []) {
        const problem = outputFolderProblem(output);
        if (problem) throw new AppError({ code: "BAD_REQUEST", field: "outputs", message: problem });
      }
      await deps.dependencies.setStep(project.id, step);
      return this.status(project.id);
    },

    /**
     * Runs the step in a container of the active version, with the manifests of a fresh snapshot at
     * /workspace and with network; exit 0 makes the result the new active version, carrying the
     * installed folders and the manifests' hashes.
     */
    async install(projectId: string): Promise<EnvironmentVersionView> {
      const project = await findProject(deps, projectId);
      requireProjectFolder(project.hostPath); // its manifests are snapshotted from it
      const active = await deps.environments.active(project.id);
      if (active?.status !== "ready")
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message:
            "This project has no ready environment yet. Prepare the environment first, then install its dependencies.",
        });
      const { step } = await stepOf(deps, project.id, project.hostPath);
      if (!step)
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `No dependency manifest (package-lock.json, requirements.txt, pyproject.toml, go.mod, Cargo.toml …) at the root of ${project.hostPath}. Set the dependency step's command and manifests by hand.`,
        });
      const dirId = `deps-${randomBytes(12).toString("hex")}`;
      const folder = dataDirPaths(deps.dataDir).dependencyDir(dirId);
      try {
        const manifests = await stageManifests({ deps, projectId: project.id, step, tree: folder.tree });
        const runtimes = await stagedRuntimes(folder.tree, step);
        const installed: InstalledDependencies = {
          dir: dataDirPaths(deps.dataDir).relative(folder.dir),
          kind: step.kind,
          command: step.command,
          outputs: step.outputs,
          manifests,
          runtimes,
        };
        return await enqueueBuild(deps, {
          projectId: project.id,
          fromImage: active.imageTag,
          kind: "dependencies",
          command: step.command,
          parentId: active.id,
          dependencies: { installed, build: { dirId, kind: step.kind, outputs: step.outputs, runtimes } },
        });
      } catch (error) {
        await fs.rm(folder.dir, { recursive: true, force: true });
        throw error;
      }
    },
  };
}

export type DependencyService = ReturnType<typeof createDependencyService>;
