import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { LABEL, type ContainerRole, type ContainerSpec, type Mount } from "../runtime/container-spec";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { AppError } from "../errors/app-error";
import { dataDirPaths } from "../storage/data-dir";

const WORKSPACE = "/workspace";
/** Containers that work on a project's files get its installed dependencies; build and probe containers do not. */
const ROLES: ReadonlySet<ContainerRole> = new Set(["agent", "evaluation", "session"]);

export interface ImageDependencies {
  dirId: string;
  outputs: string[];
}

/** The installed dependencies an environment image carries (its labels), or null. */
export function dependenciesOf(labels: Record<string, string>): ImageDependencies | null {
  const dirId = labels[LABEL.dependencies];
  if (!dirId || !/^deps-[0-9a-f]{24}$/.test(dirId)) return null;
  const outputs = (labels[LABEL.dependencyOutputs] ?? "").split(",").filter(Boolean);
  return { dirId, outputs };
}

/**
 * Refuses a trial on a worker that lacks the installed dependencies its image names (a worker on another
 * host fetches them first: this is the last check), rather than letting it run without them and judging
 * it on a broken project.
 */
export async function requireInstalledDependencies(options: {
  dataDir: string;
  labels: Record<string, string>;
}): Promise<void> {
  const dependencies = dependenciesOf(options.labels);
  if (!dependencies) return;
  const tree = dataDirPaths(options.dataDir).dependencyDir(dependencies.dirId).tree;
  if ((await fs.stat(tree).catch(() => null))?.isDirectory()) return;
  throw new AppError({
    code: "PRECONDITION_FAILED",
    message: `This environment version has the project's dependencies installed by its dependency step (${dependencies.outputs.join(", ") || "its outputs"}, folder ${dependencies.dirId}), and this worker does not have them, so the trial would run without them. A worker on another host fetches them from the dashboard; one that shares the dashboard's data dir finds them there: check that this worker's --data-dir is the dashboard's, or start it with --dashboard-url (docs/scaling.md).`,
  });
}

/**
 * One overlay per output folder: the installed folder (never written) below, a fresh upper layer in
 * `scratch` above, mounted at /workspace/<output>. Outputs the step did not leave are skipped.
 */
export async function overlayMounts(options: {
  dataDir: string;
  dependencies: ImageDependencies;
  scratch: string;
}): Promise<Mount[]> {
  const tree = dataDirPaths(options.dataDir).dependencyDir(options.dependencies.dirId).tree;
  const mounts: Mount[] = [];
  for (const [index, output] of options.dependencies.outputs.entries()) {
    const lower = path.join(tree, output);
    if (!(await fs.stat(lower).catch(() => null))?.isDirectory()) continue;
    const upperDir = path.join(options.scratch, String(index), "upper");
    const workDir = path.join(options.scratch, String(index), "work");
    await fs.mkdir(upperDir, { recursive: true });
    await fs.mkdir(workDir, { recursive: true });
    mounts.push({
      hostPath: lower,
      containerPath: `${WORKSPACE}/${output}`,
      readOnly: false,
      overlay: { upperDir, workDir },
    });
  }
  return mounts;
}

/**
 * The worker's runtime, with one addition: a container that works on a project's files (agent,
 * evaluation, session; it mounts /workspace) of an image carrying installed dependencies gets them
 * at /workspace/<output> as overlays. The container may write there (a test runner's cache, an
 * agent's `npm install`); its writes land in a scratch folder removed with the container, so the
 * installed copy stays as the dependency step left it and nothing of it enters the workspace.
 */
export function withInstalledDependencies(options: {
  runtime: ContainerRuntime;
  dataDir: string;
  /** Names the scratch folders, so a later worker on this host can sweep what a dead one left (sweepScratch). */
  owner?: { host: string; pid: number };
}): ContainerRuntime {
  const { runtime } = options;
  const scratchOf = new Map<string, string>();
  const labelsOf = new Map<string, Record<string, string>>();

  async function imageLabels(image: string): Promise<Record<string, string>> {
    const known = labelsOf.get(image);
    if (known) return known;
    const labels = (await runtime.inspectImage(image))?.labels ?? {};
    if (image.startsWith("sha256:")) labelsOf.set(image, labels); // ids never change; tags may
    return labels;
  }

  async function createContainer(spec: ContainerSpec): Promise<string> {
    const works = ROLES.has(spec.labels.role) && (spec.mounts ?? []).some((m) => m.containerPath === WORKSPACE);
    const dependencies = works ? dependenciesOf(await imageLabels(spec.image)) : null;
    if (!dependencies) return runtime.createContainer(spec);
    const scratch = path.join(
      dataDirPaths(options.dataDir).dependencyScratch,
      scratchName({ owner: options.owner, random: randomBytes(8).toString("hex") }),
    );
    try {
      const mounts = await overlayMounts({ dataDir: options.dataDir, dependencies, scratch });
      const id = await runtime.createContainer({ ...spec, mounts: [...(spec.mounts ?? []), ...mounts] });
      scratchOf.set(id, scratch);
      return id;
    } catch (error) {
      await fs.rm(scratch, { recursive: true, force: true });
      throw error;
    }
  }

  return {
    ...runtime,
    createContainer,
    async removeContainer(id) {
      await runtime.removeContainer(id);
      const scratch = scratchOf.get(id);
      if (!scratch) return;
      scratchOf.delete(id);
      await fs.rm(scratch, { recursive: true, force: true });
    },
  };
}

const SCRATCH_NAME = /^(.+)-(\d+)-([0-9a-f]{16})$/;

function scratchName(options: { owner: { host: string; pid: number } | undefined; random: string }): string {
  if (!options.owner) return options.random;
  return `${options.owner.host.replace(/[^\w.-]/g, "_")}-${options.owner.pid}-${options.random}`;
}

/**
 * Removes the overlay scratch folders a dead worker on this host left behind (its containers were
 * removed by the reconciler, which cannot know their folders). Folders of live workers, of other
 * hosts and unnamed ones are left alone. Returns how many were removed.
 */
export async function sweepScratch(options: {
  dataDir: string;
  host: string;
  isProcessAlive: (pid: number) => boolean;
}): Promise<number> {
  const root = dataDirPaths(options.dataDir).dependencyScratch;
  const host = options.host.replace(/[^\w.-]/g, "_");
  let removed = 0;
  for (const name of await fs.readdir(root).catch(() => [] as string[])) {
    const match = SCRATCH_NAME.exec(name);
    if (!match || match[1] !== host || options.isProcessAlive(Number(match[2]))) continue;
    await fs.rm(path.join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
