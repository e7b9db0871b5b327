import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { LABEL } from "../../core/runtime/container-spec";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import { removeTree, removeWorkspace } from "../../core/workspaces/workspace-store";
import { dataDirPaths } from "../../core/storage/data-dir";
import { messageOf } from "../../../shared/error-message";

/**
 * Removing what a deleted study or project left on disk and in Docker (a project's images and bridge network), crash-safely. What must go is
 * written to `<data dir>/deletions/<kind>-<id>.json` before the rows are deleted, and the file is
 * removed only once all of it is gone: a crash midway, or an image a container still uses, leaves
 * nothing that nobody owns — resume() finishes the work at the next start.
 */
export interface Removal {
  owner: { kind: "study" | "project"; id: string };
  /** The project whose images these are: an image is removed only if its `invariant.project` label says so. */
  projectId: string;
  /** Removed in this order (children before the images they were built from). */
  imageIds: string[];
  /**
   * Images carrying all these labels are the owner's too (e.g. `invariant.study=<id>`): they are looked up
   * when the removal runs (and again when a journal is resumed) and added to `imageIds`, so an image that
   * was never recorded (an attempt whose worker died right after its commit) goes as well.
   */
  imageLabels?: Record<string, string>;
  workspaceIds: string[];
  /** Relative to the data dir. */
  paths: string[];
}

export interface RemovalJournalDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "removeImage" | "listImages" | "removeProjectNetworks">;
  log: (message: string) => void;
}

const OWNER_ID = /^[A-Za-z0-9_-]{1,100}$/;
const removalSchema = z.object({
  owner: z.object({ kind: z.enum(["study", "project"]), id: z.string().regex(OWNER_ID) }),
  projectId: z.string(),
  imageIds: z.array(z.string()),
  imageLabels: z.record(z.string(), z.string()).optional(),
  workspaceIds: z.array(z.string()),
  paths: z.array(z.string()),
});

function message(error: unknown): string {
  return messageOf(error);
}

/** Removes one image if it is the project's own; null when it is gone (or kept as another's), else why it is still there. */
async function removeImage(deps: RemovalJournalDeps, removal: Removal, imageId: string): Promise<string | null> {
  try {
    const image = await deps.runtime.inspectImage(imageId);
    if (!image) return null; // gone already
    // never an image that is not this project's own (a base image, another project's)
    if (image.labels[LABEL.project] !== removal.projectId) {
      deps.log(`storage: kept image ${imageId.slice(0, 19)}: it is not labelled as project ${removal.projectId}'s`);
      return null;
    }
    await deps.runtime.removeImage(imageId);
    return null;
  } catch (error) {
    return `image ${imageId.slice(0, 19)}: ${message(error)}`;
  }
}

/**
 * The images to remove: the recorded ones plus those found by label now. Committed trial images (they carry
 * `invariant.run`) first, then the others newest first, so an image goes before the ones it was built on.
 */
async function imagesToRemove(deps: RemovalJournalDeps, removal: Removal): Promise<string[]> {
  if (!removal.imageLabels) return removal.imageIds;
  const found = await deps.runtime.listImages(removal.imageLabels);
  // an empty label is no label (containers set the ownership labels empty when unowned, and images keep them)
  const trialImages = found.filter((image) => Boolean(image.labels[LABEL.run]));
  const others = found
    .filter((image) => !image.labels[LABEL.run])
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  const otherIds = new Set(others.map((image) => image.id));
  return [
    ...new Set([
      ...trialImages.map((image) => image.id),
      ...removal.imageIds.filter((id) => !otherIds.has(id)),
      ...others.map((image) => image.id),
    ]),
  ];
}

/**
 * Removes the images that are the project's own; returns what could not be removed yet. An image refused
 * because another still builds on it is tried again after the others, while that removes something.
 */
async function removeImages(deps: RemovalJournalDeps, removal: Removal): Promise<string[]> {
  let pending = removal.imageIds;
  let leftovers: string[] = [];
  for (;;) {
    const failed: string[] = [];
    leftovers = [];
    for (const imageId of pending) {
      const reason = await removeImage(deps, removal, imageId);
      if (!reason) continue;
      failed.push(imageId);
      leftovers.push(reason);
    }
    if (failed.length === 0 || failed.length === pending.length) return leftovers;
    pending = failed;
  }
}

/** Removes what a journal lists, then the journal if all of it went; returns what could not be removed yet. Every step is idempotent. */
async function sweep(deps: RemovalJournalDeps, removal: Removal): Promise<string[]> {
  const leftovers = await removeImages(deps, removal);
  // a removed project's bridge (network mode internet), and any twin of it; kept while a container is on it
  if (removal.owner.kind === "project")
    leftovers.push(
      ...(await deps.runtime
        .removeProjectNetworks(removal.projectId)
        .catch((error: unknown) => [`networks: ${message(error)}`])),
    );
  for (const workspaceId of removal.workspaceIds) {
    await removeWorkspace({ dataDir: deps.dataDir, workspaceId }).catch((error: unknown) =>
      leftovers.push(`workspace ${workspaceId}: ${message(error)}`),
    );
  }
  for (const relative of removal.paths) {
    await removeTree(dataDirPaths(deps.dataDir).absolute(relative)).catch((error: unknown) =>
      leftovers.push(`${relative}: ${message(error)}`),
    );
  }
  if (leftovers.length === 0) await fsp.rm(dataDirPaths(deps.dataDir).deletion(removal.owner), { force: true });
  return leftovers;
}

/** Writes the journal file atomically (after dropping any path that would leave the data dir). */
function writeJournal(deps: RemovalJournalDeps, removal: Removal): Removal {
  const checked = removalSchema.parse({
    ...removal,
    paths: removal.paths.filter((relative) => !path.isAbsolute(relative) && !relative.split(path.sep).includes("..")),
  });
  const file = dataDirPaths(deps.dataDir).deletion(checked.owner);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(checked));
  fs.renameSync(`${file}.tmp`, file);
  return checked;
}

/** Finishes one journal left by an earlier process, or drops it if the owner's rows are still there. */
async function resumeOne(options: {
  deps: RemovalJournalDeps;
  file: string;
  exists: (owner: Removal["owner"]) => Promise<boolean>;
}): Promise<void> {
  const { deps, file } = options;
  let parsed: Removal;
  try {
    parsed = removalSchema.parse(JSON.parse(await fsp.readFile(file, "utf8")));
  } catch {
    deps.log(`storage: ignoring the unreadable deletion journal ${path.basename(file)}`);
    return;
  }
  if (await options.exists(parsed.owner)) {
    await fsp.rm(file, { force: true });
    return;
  }
  // images committed after the removal was journalled (a worker still finishing) are found by label again
  const leftovers = await sweep(deps, { ...parsed, imageIds: await imagesToRemove(deps, parsed) });
  if (leftovers.length > 0)
    deps.log(
      `storage: could not yet remove what the deleted ${parsed.owner.kind} ${parsed.owner.id} left: ${leftovers.join("; ")}`,
    );
}

export function createRemovalJournal(deps: RemovalJournalDeps) {
  return {
    /**
     * Journals the removal, runs `deleteRows` (one transaction), then removes the files and images.
     * Returns what could not be removed yet (kept in the journal for the next start).
     */
    async remove(removal: Removal, deleteRows: () => Promise<void>): Promise<string[]> {
      const checked = writeJournal(deps, { ...removal, imageIds: await imagesToRemove(deps, removal) });
      try {
        await deleteRows();
      } catch (error) {
        // nothing was deleted: nothing to finish later
        await fsp.rm(dataDirPaths(deps.dataDir).deletion(checked.owner), { force: true });
        throw error;
      }
      return sweep(deps, checked);
    },

    /** Finishes removals a crash or a busy resource interrupted; `exists` says whether the owner's rows are still there (then nothing was deleted). */
    async resume(exists: (owner: Removal["owner"]) => Promise<boolean>): Promise<void> {
      const dir = dataDirPaths(deps.dataDir).deletions;
      const files = await fsp.readdir(dir).catch(() => [] as string[]);
      for (const file of files.filter((name) => name.endsWith(".json")))
        await resumeOne({ deps, file: path.join(dir, file), exists });
    },
  };
}

export type RemovalJournal = ReturnType<typeof createRemovalJournal>;
