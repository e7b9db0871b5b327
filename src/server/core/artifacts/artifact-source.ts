import type { TestFileView } from "../../../shared/study-schemas";
import type { JobLease } from "./dashboard-channel";

/**
 * Where a worker gets what a job names and where it hands back what a trial made. A worker that shares
 * the web process's data dir and Docker engine (the launcher's child, workers beside it) needs neither:
 * the local source does nothing. A worker on another host (started with --dashboard-url) fetches over
 * the authenticated worker API and caches by content id in its own data dir (http-artifact-source.ts).
 */
export interface ArtifactSource {
  /** Makes sure this worker's data dir has the snapshot and the captured files, and its engine the image. */
  prepare(options: {
    snapshotId: string;
    studyId: string;
    testFiles: readonly TestFileView[];
    image: string;
  }): Promise<void>;
  /**
   * Hands a finished attempt's results to the web process before its `trial.finished` is published: its
   * changed files, log, evaluation and finish report. Then the worker's own copy of the workspace is
   * dropped (the web process has it).
   */
  deliver(options: {
    trialId: string;
    attempt: number;
    snapshotId: string;
    workspaceId: string | null;
    workspacePath: string | null;
    finished: { data: { workspaceId: string | null } } & object;
  }): Promise<void>;
  /** Where a committed image stays when it is not on the web host's engine (this worker and its host), or null. */
  imageLocation: { worker: string; host: string } | null;
  /**
   * The same source for one job this worker holds: every call to the dashboard names that job's lease,
   * and the dashboard hands out only what the job names (absent: a local source, which calls nobody).
   */
  forLease?(lease: JobLease): ArtifactSource;
}

/** A worker on the web process's data dir and engine: everything is already where it is needed. */
export const localArtifactSource: ArtifactSource = {
  prepare: () => Promise.resolve(),
  deliver: () => Promise.resolve(),
  imageLocation: null,
};
