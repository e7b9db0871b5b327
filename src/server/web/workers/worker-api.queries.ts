import type { Db } from "../../core/db/client";
import { manifestInputsSchema, type ManifestInputs } from "../../../shared/trial-manifest";

/** What a study froze for its runs: the snapshot, the image and the captured files' hashes. */
export interface StudyArtifacts {
  studyId: string;
  state: string;
  snapshotId: string | null;
  imageId: string | null;
  testFiles: string[];
}

/** A trial as the worker API checks a worker's calls for it: its attempt, state, study and frozen inputs. */
export interface TrialRecord {
  trialId: string;
  attempt: number;
  state: string;
  workspaceId: string | null;
  study: StudyArtifacts;
  /** What the attempt was queued with (null for a trial queued before manifests). */
  manifest: ManifestInputs | null;
}

const studySelect = { id: true, state: true, snapshotId: true, imageId: true, testFiles: true } as const;

function studyArtifacts(row: {
  id: string;
  state: string;
  snapshotId: string | null;
  imageId: string | null;
  testFiles: string;
}): StudyArtifacts {
  const files = JSON.parse(row.testFiles) as { sha256?: unknown }[];
  return {
    studyId: row.id,
    state: row.state,
    snapshotId: row.snapshotId,
    imageId: row.imageId,
    testFiles: files.map((file) => file.sha256).filter((sha): sha is string => typeof sha === "string"),
  };
}

function parsedManifest(text: string | null): ManifestInputs | null {
  if (!text) return null;
  const parsed = manifestInputsSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** What the worker API needs of the database: the studies and trials whose jobs workers hold. */
export function createWorkerApiQueries(db: Db) {
  return {
    async study(studyId: string): Promise<StudyArtifacts | null> {
      const row = await db.study.findUnique({ where: { id: studyId }, select: studySelect });
      return row ? studyArtifacts(row) : null;
    },

    async trial(trialId: string): Promise<TrialRecord | null> {
      const row = await db.trial.findUnique({
        where: { id: trialId },
        select: { attempt: true, state: true, workspaceId: true, manifest: true, study: { select: studySelect } },
      });
      if (!row) return null;
      return {
        trialId,
        attempt: row.attempt,
        state: row.state,
        workspaceId: row.workspaceId,
        study: studyArtifacts(row.study),
        manifest: parsedManifest(row.manifest),
      };
    },
  };
}

export type WorkerApiQueries = ReturnType<typeof createWorkerApiQueries>;
