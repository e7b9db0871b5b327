import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { LABEL } from "../runtime/container-spec";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { removeTree, removeWorkspace } from "../workspaces/workspace-store";

/**
 * Removing what a deleted study or project left on disk and in Docker, crash-safely. What must go is
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
  workspaceIds: string[];
  /** Relative to the data dir. */
  paths: string[];
}

export interface RemovalJournalDeps {
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "removeImage">;
  log: (message: string) => void;
}

const OWNER_ID = /^[A-Za-z0-9_-]{1,100}$/;
const removalSchema = z.object({
  owner: z.object({ kind: z.enum(["study", "project"]), id: z.string().regex(OWNER_ID) }),
  projectId: z.string(),
  imageIds: z.array(z.string()),
  workspaceIds: z.array(z.string()),
  paths: z.array(z.string()),
});

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createRemovalJournal(deps: RemovalJournalDeps) {
  const dir = path.join(deps.dataDir, "deletions");
  const fileOf = (owner: Removal["owner"]) => path.join(dir, `${owner.kind}-${owner.id}.json`);

  /** Removes what a journal lists; returns what could not be removed yet. Every step is idempotent. */
  async function sweep(removal: Removal): Promise<string[]> {
    const leftovers: string[] = [];
    for (const imageId of removal.imageIds) {
      try {
        const image = await deps.runtime.inspectImage(imageId);
        if (!image) continue; // gone already
        // never an image that is not this project's own (a base image, another project's)
        if (image.labels[LABEL.project] !== removal.projectId) {
          deps.log(`storage: kept image ${imageId.slice(0, 19)}: it is not labelled as project ${removal.projectId}'s`);
          continue;
        }
        await deps.runtime.removeImage(imageId);
      } catch (error) {
        leftovers.push(`image ${imageId.slice(0, 19)}: ${message(error)}`);
      }
    }
    for (const workspaceId of removal.workspaceIds) {
      await removeWorkspace({ dataDir: deps.dataDir, workspaceId }).catch((error: unknown) =>
        leftovers.push(`workspace ${workspaceId}: ${message(error)}`),
      );
    }
    for (const relative of removal.paths) {
      await removeTree(path.join(deps.dataDir, relative)).catch((error: unknown) =>
        leftovers.push(`${relative}: ${message(error)}`),
      );
    }
    if (leftovers.length === 0) await fsp.rm(fileOf(removal.owner), { force: true });
    return leftovers;
  }

  return {
    /**
     * Journals the removal, runs `deleteRows` (one transaction), then removes the files and images.
     * Returns what could not be removed yet (kept in the journal for the next start).
     */
    async remove(removal: Removal, deleteRows: () => Promise<void>): Promise<string[]> {
      const checked = removalSchema.parse({
        ...removal,
        paths: removal.paths.filter(
          (relative) => !path.isAbsolute(relative) && !relative.split(path.sep).includes(".."),
        ),
      });
      fs.mkdirSync(dir, { recursive: true });
      const temp = `${fileOf(checked.owner)}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(checked));
      fs.renameSync(temp, fileOf(checked.owner));
      try {
        await deleteRows();
      } catch (error) {
        await fsp.rm(fileOf(checked.owner), { force: true }); // nothing was deleted: nothing to finish later
        throw error;
      }
      return sweep(checked);
    },

    /** Finishes removals a crash or a busy resource interrupted; `exists` says whether the owner's rows are still there (then nothing was deleted). */
    async resume(exists: (owner: Removal["owner"]) => Promise<boolean>): Promise<void> {
      const files = await fsp.readdir(dir).catch(() => [] as string[]);
      for (const file of files.filter((name) => name.endsWith(".json"))) {
        let parsed: Removal;
        try {
          parsed = removalSchema.parse(JSON.parse(await fsp.readFile(path.join(dir, file), "utf8")));
        } catch {
          deps.log(`storage: ignoring the unreadable deletion journal ${file}`);
          continue;
        }
        if (await exists(parsed.owner)) {
          await fsp.rm(path.join(dir, file), { force: true });
          continue;
        }
        const leftovers = await sweep(parsed);
        if (leftovers.length > 0)
          deps.log(
            `storage: could not yet remove what the deleted ${parsed.owner.kind} ${parsed.owner.id} left: ${leftovers.join("; ")}`,
          );
      }
    },
  };
}

export type RemovalJournal = ReturnType<typeof createRemovalJournal>;
