import type { Db } from "../../core/db/client";
import { OPEN_TRIAL_STATES } from "../../../shared/vocabulary";

/** Everything the database still refers to on disk and in Docker: what the garbage collector must keep. */
export interface StorageReferences {
  projectIds: Set<string>;
  studyIds: Set<string>;
  trialIds: Set<string>;
  /** Trials that have not ended: their artefacts may not be on record yet. */
  openTrialIds: Set<string>;
  environmentVersionIds: Set<string>;
  /** Projects with a study in its preflight: the preflight's workspace is on no record until it is removed. */
  preflightProjectIds: Set<string>;
  /** Workspace ids named by a trial, an earlier attempt, a session or a recorded trial event. */
  workspaceIds: Set<string>;
  /** Image ids and references (tags) named by a trial, an attempt, an environment version, a session or an event. */
  images: Set<string>;
}

const ARTEFACT_EVENTS = ["trial.started", "trial.artefacts", "trial.finished"];

function addString(set: Set<string>, value: unknown): void {
  if (typeof value === "string" && value !== "") set.add(value);
}

/** The workspace and image an event's payload names (earlier attempts are only on record there). */
function addEventArtefacts(references: StorageReferences, payload: string): void {
  try {
    const data = (JSON.parse(payload) as { data?: { workspaceId?: unknown; committedImageId?: unknown } }).data;
    addString(references.workspaceIds, data?.workspaceId);
    addString(references.images, data?.committedImageId);
  } catch {
    // an unreadable payload names nothing
  }
}

export function createStorageReferenceQueries(db: Db) {
  return {
    async references(): Promise<StorageReferences> {
      const [projects, studies, trials, attempts, versions, sessions, events] = await Promise.all([
        db.project.findMany({ select: { id: true } }),
        db.study.findMany({ select: { id: true, projectId: true, state: true } }),
        db.trial.findMany({ select: { id: true, state: true, workspaceId: true, committedImageId: true } }),
        db.trialAttempt.findMany({ select: { workspaceId: true, committedImageId: true } }),
        db.environmentVersion.findMany({ select: { id: true, imageId: true, imageTag: true } }),
        db.session.findMany({ select: { workspaceId: true, image: true } }),
        db.eventLog.findMany({ where: { type: { in: ARTEFACT_EVENTS } }, select: { payload: true } }),
      ]);
      const references: StorageReferences = {
        projectIds: new Set(projects.map((project) => project.id)),
        studyIds: new Set(studies.map((study) => study.id)),
        trialIds: new Set(trials.map((trial) => trial.id)),
        openTrialIds: new Set(
          trials.filter((trial) => OPEN_TRIAL_STATES.includes(trial.state as never)).map((t) => t.id),
        ),
        environmentVersionIds: new Set(versions.map((version) => version.id)),
        preflightProjectIds: new Set(studies.filter((s) => s.state === "preflight").map((s) => s.projectId)),
        workspaceIds: new Set(),
        images: new Set(),
      };
      for (const row of [...trials, ...attempts]) {
        addString(references.workspaceIds, row.workspaceId);
        addString(references.images, row.committedImageId);
      }
      for (const version of versions) {
        addString(references.images, version.imageId);
        addString(references.images, version.imageTag);
      }
      for (const session of sessions) {
        addString(references.workspaceIds, session.workspaceId);
        addString(references.images, session.image);
      }
      for (const event of events) addEventArtefacts(references, event.payload);
      return references;
    },
  };
}

export type StorageReferenceQueries = ReturnType<typeof createStorageReferenceQueries>;
