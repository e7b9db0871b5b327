import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import type { ContainerRuntime } from "../runtime/docker-runtime";
import { removeTree, removeWorkspace } from "../workspaces/workspace-store";
import type { StudyQueries } from "./studies.queries";
import { parseJson } from "./study-views";

/**
 * Deleting a finished study: its rows and recorded events, and everything it left on disk and in
 * Docker — every attempt's workspace and committed image, the trials' logs and evaluation files, the
 * captured test files and the artifacts. The rows go in one transaction; what must be removed besides
 * them is written to a journal first (`<data dir>/deletions/<study id>.json`) and the journal is
 * removed only once all of it is gone, so a crash or a busy image never leaves files nobody owns:
 * the next start finishes the work (resumeDeletions).
 */
export interface StudyDeletionDeps {
  studies: Pick<StudyQueries, "find" | "deletionPlan" | "deleteStudy">;
  runtime: Pick<ContainerRuntime, "removeImage">;
  dataDir: string;
  log: (message: string) => void;
}

export interface StudyDeletionResult {
  studyId: string;
  removed: { trials: number; workspaces: number; images: number };
  /** What could not be removed yet (retried at the next start), one sentence each. */
  leftovers: string[];
}

const journalSchema = z.object({ studyId: z.string(), workspaceIds: z.array(z.string()), imageIds: z.array(z.string()), paths: z.array(z.string()) });
type Journal = z.infer<typeof journalSchema>;

const DELETABLE_STATES = new Set(["refused", "done", "stopped"]);

function deletionsDir(dataDir: string): string {
  return path.join(dataDir, "deletions");
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createStudyDeletion(deps: StudyDeletionDeps) {
  const journalPath = (studyId: string) => path.join(deletionsDir(deps.dataDir), `${studyId}.json`);

  /** Removes what a journal lists; returns what could not be removed. Every step is idempotent. */
  async function sweep(journal: Journal): Promise<string[]> {
    const leftovers: string[] = [];
    for (const imageId of journal.imageIds) {
      await deps.runtime.removeImage(imageId).catch((error: unknown) => leftovers.push(`image ${imageId.slice(0, 19)}: ${message(error)}`));
    }
    for (const workspaceId of journal.workspaceIds) {
      await removeWorkspace({ dataDir: deps.dataDir, workspaceId }).catch((error: unknown) => leftovers.push(`workspace ${workspaceId}: ${message(error)}`));
    }
    for (const relative of journal.paths) {
      await removeTree(path.join(deps.dataDir, relative)).catch((error: unknown) => leftovers.push(`${relative}: ${message(error)}`));
    }
    if (leftovers.length === 0) await fsp.rm(journalPath(journal.studyId), { force: true });
    return leftovers;
  }

  return {
    async remove(studyId: string, by: string): Promise<StudyDeletionResult> {
      const study = await deps.studies.find(studyId);
      if (!study) throw new AppError({ code: "NOT_FOUND", message: `No study with id ${studyId}. It may have been deleted already; open the study list.` });
      if (!DELETABLE_STATES.has(study.state)) {
        throw new AppError({ code: "CONFLICT", message: `"${study.title}" is ${study.state}; stop it first (or wait for it to finish), then delete it.` });
      }
      const plan = await deps.studies.deletionPlan(studyId);
      const journal: Journal = {
        studyId,
        workspaceIds: plan.workspaceIds,
        imageIds: plan.imageIds,
        paths: [path.join("studies", studyId), ...plan.trialIds.map((trialId) => path.join("trials", trialId)), ...plan.artifactPaths].filter((relative) => !relative.startsWith("..") && !path.isAbsolute(relative)),
      };
      // the journal is in place (atomically) before any row goes
      fs.mkdirSync(deletionsDir(deps.dataDir), { recursive: true });
      const temp = `${journalPath(studyId)}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(journal));
      fs.renameSync(temp, journalPath(studyId));
      await deps.studies.deleteStudy(studyId);
      const leftovers = await sweep(journal);
      deps.log(`studies: ${by} deleted "${study.title}" (${studyId})${leftovers.length > 0 ? `; left for the next start: ${leftovers.join("; ")}` : ""}`);
      return { studyId, removed: { trials: plan.trialIds.length, workspaces: plan.workspaceIds.length, images: plan.imageIds.length }, leftovers };
    },

    /** Finishes deletions a crash or a busy resource interrupted. */
    async resumeDeletions(): Promise<void> {
      const files = await fsp.readdir(deletionsDir(deps.dataDir)).catch(() => [] as string[]);
      for (const file of files.filter((name) => name.endsWith(".json"))) {
        const text = await fsp.readFile(path.join(deletionsDir(deps.dataDir), file), "utf8").catch(() => "");
        const parsed = journalSchema.safeParse(parseJson(text, null));
        if (!parsed.success) {
          deps.log(`studies: ignoring the unreadable deletion journal ${file}`);
          continue;
        }
        // a study whose rows are still there was not deleted (the crash came before the transaction): it stays
        if (await deps.studies.find(parsed.data.studyId)) {
          await fsp.rm(path.join(deletionsDir(deps.dataDir), file), { force: true });
          continue;
        }
        const leftovers = await sweep(parsed.data);
        if (leftovers.length > 0) deps.log(`studies: could not yet remove what the deleted study ${parsed.data.studyId} left: ${leftovers.join("; ")}`);
      }
    },
  };
}

export type StudyDeletion = ReturnType<typeof createStudyDeletion>;
