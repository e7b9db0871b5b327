import path from "node:path";
import { keptAppliesOfProject } from "../apply/apply-backup";
import { AppError } from "../../core/errors/app-error";
import type { EnvironmentQueries } from "../environments/environments.queries";
import type { SnapshotQueries } from "../snapshots/snapshots.queries";
import { LABEL } from "../../core/runtime/container-spec";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { RemovalJournal } from "../cleanup/removal-journal";
import type { StudyQueries } from "../studies/studies.queries";
import { studyRemovalParts } from "../studies/study-deletion";
import { workspacesOfProject } from "../../core/workspaces/workspace-store";
import type { ProjectQueries } from "../projects/projects.queries";
import type { CodexHomeKind } from "../sessions/codex-home";
import {
  BUSY_STUDY_STATES,
  isIdle,
  runningWorkRefusal,
  stopRunningWork,
  type RunningWork,
  type WorkStopper,
} from "./running-work";

export interface ProjectRemovalDeps {
  projects: Pick<ProjectQueries, "findById" | "remove">;
  studies: Pick<StudyQueries, "list" | "deletionPlan">;
  environments: Pick<EnvironmentQueries, "list">;
  snapshots: Pick<SnapshotQueries, "listForProject">;
  /** The project's terminal sessions: their folders (control, saved screen) go with it. */
  sessions: {
    list(options: { projectId: string; limit?: number }): Promise<{ id: string; kind: string; state: string }[]>;
  };
  /** Ends what runs when removal is asked to stop it (wired once the sessions and studies services exist). */
  stopper: WorkStopper;
  journal: RemovalJournal;
  dataDir: string;
}

/** More sessions than any project keeps (the list is bounded; a project past it keeps its oldest folders). */
const MAX_SESSIONS = 100_000;
const SESSION_HOME_KINDS: readonly CodexHomeKind[] = ["direct", "private", "continue"];

/**
 * What the data dir keeps per project outside its rows' own folders (data-dir.ts): the agent homes of
 * its sessions, one per mode (and per agent besides Codex), the old shared one, and the package managers' caches of its dependency steps.
 */
function projectHomes(dataDir: string, projectId: string): string[] {
  const paths = dataDirPaths(dataDir);
  return [
    ...SESSION_HOME_KINDS.map((kind) => paths.sessionCodexHome(projectId, kind)),
    ...SESSION_HOME_KINDS.flatMap((kind) =>
      (["claude-code", "gemini-cli"] as const).map((agent) => paths.sessionAgentHome(projectId, kind, agent)),
    ),
    paths.absolute(path.join("sessions", "codex-homes", projectId)),
    path.dirname(paths.cache({ projectId, name: "npm" })),
  ].map(paths.relative);
}

/** Its sessions that still have a container, and its studies that run. */
async function runningWork(deps: ProjectRemovalDeps, projectId: string): Promise<RunningWork> {
  const sessions = await deps.sessions.list({ projectId, limit: MAX_SESSIONS });
  const studies = await deps.studies.list({ projectId });
  return {
    sessions: sessions
      .filter((session) => session.state !== "finished")
      .map(({ id, kind, state }) => ({ id, kind, state })),
    studies: studies
      .filter((study) => BUSY_STUDY_STATES.has(study.state))
      .map(({ id, title, state }) => ({ id, title, state })),
  };
}

/**
 * Forgets a project: its rows (studies, environment versions, snapshots, events) in one transaction,
 * then what it left in the data dir and in Docker — its studies' files and trial images, its
 * environment images, snapshots, workspaces and kept apply backups, its sessions' folders, agent homes and package
 * caches — through the removal journal. The files in the project's own directory are never touched. While one
 * of its sessions is not finished (its container is still there) or one of its studies runs, it is refused
 * with the list of them; with `stopRunning` they are finished and stopped first (running-work.ts). Refused
 * while an environment version builds.
 */
export async function removeProject(
  deps: ProjectRemovalDeps,
  input: { id: string; stopRunning?: boolean; by?: string },
): Promise<{ id: string; hostPath: string; leftovers: string[] }> {
  const { id } = input;
  const project = await deps.projects.findById(id);
  if (!project)
    throw new AppError({
      code: "NOT_FOUND",
      message: `No project with id ${id}. It may have been removed; reload the project list.`,
    });
  const versions = await deps.environments.list(id);
  const building = versions.find((version) => version.status === "building");
  if (building)
    throw new AppError({
      code: "CONFLICT",
      message: `Environment v${building.version} is still being prepared; wait for it to finish, then remove the project.`,
    });
  const work = await runningWork(deps, id);
  if (!isIdle(work)) {
    if (!input.stopRunning) throw runningWorkRefusal(work);
    await stopRunningWork({
      work,
      stopper: deps.stopper,
      by: input.by ?? "the project's removal",
      current: () => runningWork(deps, id),
    });
  }
  const studies = await deps.studies.list({ projectId: id });
  const sessions = await deps.sessions.list({ projectId: id, limit: MAX_SESSIONS });

  const parts = await Promise.all(studies.map((study) => studyRemovalParts(deps.studies, study.id)));
  const environmentImages = [...versions]
    .sort((a, b) => b.version - a.version)
    .flatMap((version) => (version.imageId ? [version.imageId] : []));
  const snapshots = await deps.snapshots.listForProject(id);
  const paths = dataDirPaths(deps.dataDir);
  const leftovers = await deps.journal.remove(
    {
      owner: { kind: "project", id },
      projectId: id,
      // trial images first, then the environment's, newest first: an image goes after those built on it
      imageIds: [...parts.flatMap((part) => part.imageIds), ...environmentImages],
      // and every image labelled as the project's that no row names (orphaned trial images, unrecorded versions)
      imageLabels: { [LABEL.project]: id },
      workspaceIds: [
        ...new Set([
          ...parts.flatMap((part) => part.workspaceIds),
          ...(await workspacesOfProject({ dataDir: deps.dataDir, projectId: id })),
        ]),
      ],
      paths: [
        ...parts.flatMap((part) => part.paths),
        ...snapshots.map((snapshot) => paths.relative(paths.snapshot(snapshot.id).dir)),
        ...versions.flatMap((version) => (version.logPath ? [version.logPath] : [])),
        // installed dependencies (dependencies/<id>/), once per folder however many versions carry it
        ...new Set(versions.flatMap((version) => (version.dependencies ? [version.dependencies.dir] : []))),
        ...(await keptAppliesOfProject({ dataDir: deps.dataDir, projectId: id })).map(paths.relative),
        // its sessions' folders (control, saved screen), its agent homes and its package caches
        ...sessions.map((session) => paths.relative(paths.session(session.id).dir)),
        ...projectHomes(deps.dataDir, id),
      ],
    },
    () => deps.projects.remove(id),
  );
  return { id, hostPath: project.hostPath, leftovers };
}
