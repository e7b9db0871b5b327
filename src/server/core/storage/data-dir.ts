import path from "node:path";
import { AppError } from "../errors/app-error";

/**
 * Every path under the data dir, in one place. Who writes what:
 *   invariant.db                  web (the only SQLite writer; `invariant-web apply`/`export` open it when no web runs)
 *   launcher.json                 web (the data-dir lock)
 *   access-token                  web (created at first start; the CLI reads it)
 *   redis/                        the private Redis child the web process starts
 *   deletions/                    web (removal journal)
 *   logs/environments/            web (the recorder appends `environment.log` events)
 *   snapshots/<id>/               web (snapshot service); workers read them and mount git/objects
 *   studies/<id>/test-files/      web (captured at study creation); workers restore them before evaluating
 *   workspaces/<id>/              workers (trial and preflight workspaces) and web (previews); both read
 *   trials/<id>/attempt-<n>/      workers (trial.log, codex-home, evaluation.json); web reads log and evaluation
 *                                 web: trial.live.log, a running remote trial's log as its events arrive
 *   gateway/<worker>.sock         workers (the model gateway's socket)
 *   gateway/sessions/gateway.sock web (the model gateway of terminal sessions)
 *   sessions/<id>/                web (a terminal session's control folder and saved screen)
 *   sessions/agent-homes/<mode>/<project> web (a project's Codex home for its sessions of one mode: direct, private, continue)
 *   sessions/agent-homes/<agent>/<mode>/<project> web (the same for Claude Code's and Gemini CLI's sessions)
 *   applies/<record id>/          web (what an apply replaced or deleted, kept until it is undone)
 *   dependencies/<id>/tree/       web (the manifests), workers (the dependency step installs beside them); trials mount its outputs
 *   dependencies/<id>/archive.*   web (its outputs as one bundle, for workers on other hosts); those workers unpack it into their tree/
 *   caches/projects/<project>/<package manager>/ workers (a project's npm, pip, yarn, pnpm, apt caches, mounted into its dependency steps)
 *   caches/package-files/         workers (the gateway bridges and the Codex binary they mount, staged by src/server/core/agents/package-files.ts)
 *   credentials/openai-api-key    web (Setup page) and `invariant-web login`; only the gateway reads it (credentials/stored-api-key.ts)
 * A worker on the same host shares this data dir; a worker on another host (--dashboard-url) has its own,
 * filled over the worker API (docs/scaling.md).
 */
const SNAPSHOT_ID = /^[0-9a-f]{64}$/;
const WORKSPACE_ID = /^ws-[0-9a-f]{24}$/;
const APPLY_RECORD_ID = /^[A-Za-z0-9_-]{1,100}$/;
const DEPENDENCY_DIR_ID = /^deps-[0-9a-f]{24}$/;
const CACHE_NAME = /^[a-z0-9-]{1,40}$/;

function checkDependencyDirId(id: string): string {
  if (!DEPENDENCY_DIR_ID.test(id))
    throw new AppError({
      code: "BAD_REQUEST",
      message: `"${id}" is not a dependency folder id (deps- and 24 hex digits).`,
    });
  return id;
}

export function isWorkspaceId(name: string): boolean {
  return WORKSPACE_ID.test(name);
}

function checkSnapshotId(snapshotId: string): string {
  if (!SNAPSHOT_ID.test(snapshotId))
    throw new AppError({ code: "BAD_REQUEST", message: `"${snapshotId}" is not a snapshot id (64 hex digits).` });
  return snapshotId;
}

function checkWorkspaceId(workspaceId: string): string {
  if (!isWorkspaceId(workspaceId))
    throw new AppError({
      code: "BAD_REQUEST",
      field: "workspaceId",
      message: `"${workspaceId}" is not a workspace id (ws- and 24 hex digits).`,
    });
  return workspaceId;
}

function checkApplyRecordId(recordId: string): string {
  if (!APPLY_RECORD_ID.test(recordId))
    throw new AppError({ code: "BAD_REQUEST", field: "recordId", message: `"${recordId}" is not an apply record id.` });
  return recordId;
}

/** What an apply kept so it can be undone: `tree/` holds the replaced and deleted files at their paths. */
export function applyBackupPaths(dir: string) {
  return { dir, tree: path.join(dir, "tree"), meta: path.join(dir, "apply.json") };
}

/** A snapshot directory's files (also the layout of the temporary directory a snapshot is built in). */
export function snapshotPaths(dir: string) {
  const gitObjects = path.join(dir, "git", "objects");
  const packDir = path.join(gitObjects, "pack");
  return {
    dir,
    manifest: path.join(dir, "manifest.json"),
    git: path.join(dir, "git"),
    /** Immutable; workspaces borrow them (alternates) and containers mount them read-only at this path. */
    gitObjects,
    packDir,
    pack: (packName: string) => path.join(packDir, `${packName}.pack`),
    /**
     * The snapshot's files written out once (read-only by convention, made under a `.tmp-tree-*` name and
     * renamed): the shared lower layer of every copy-on-write workspace of this snapshot.
     */
    tree: path.join(dir, "tree"),
  };
}

/** A workspace directory's files (also the layout of the temporary directory a workspace is built in). */
export function workspacePaths(dir: string) {
  return {
    dir,
    meta: path.join(dir, "meta.json"),
    /** A copy workspace's files (a private writable copy of the snapshot). */
    tree: path.join(dir, "tree"),
    /** A copy-on-write workspace's own layer over the snapshot's tree: what its runs changed, with whiteouts. */
    upper: path.join(dir, "upper"),
    /** overlayfs' work dir of that layer (same filesystem as `upper`, empty between mounts). */
    work: path.join(dir, "work"),
    /** The host-facing git dir (outside the tree, never mounted): the one the host's git uses (host-git.ts). */
    git: path.join(dir, "git"),
  };
}

const SESSION_OR_PROJECT_ID = /^[A-Za-z0-9_-]{1,100}$/;

function checkSessionId(id: string): string {
  if (!SESSION_OR_PROJECT_ID.test(id))
    throw new AppError({ code: "BAD_REQUEST", message: `"${id}" is not a session or project id.` });
  return id;
}

function sessionPaths(dir: string) {
  const control = path.join(dir, "control");
  return {
    dir,
    control,
    /** The thread the next start resumes (Codex sessions); absent: a new conversation. */
    resumeThread: path.join(control, "resume-thread"),
    screen: path.join(dir, "screen.json"),
    /** A private copy's writes over its installed dependencies (overlay upper layers), removed when it finishes. */
    dependencyScratch: path.join(dir, "dependencies"),
  };
}

function trialAttemptPaths(dir: string) {
  return {
    dir,
    log: path.join(dir, "trial.log"),
    /**
     * The web process's copy of a remote trial's log while it runs (its `trial.log` chunks as they arrive); the
     * worker's own `trial.log`, once here (a local worker writes it from the start, a remote one delivers it at
     * the end), is the log and this file goes (web/studies/live-trial-log.ts).
     */
    liveLog: path.join(dir, "trial.live.log"),
    codexHome: path.join(dir, "codex-home"),
    /**
     * What the test command runs on (removed afterwards): a copy of a copy workspace; for a copy-on-write one
     * only `evaluation/upper` and `evaluation/work`, a fresh layer over the agent's.
     */
    evaluationTree: path.join(dir, "evaluation"),
    evaluationFile: path.join(dir, "evaluation.json"),
  };
}

/** The data dir's layout; every function returns an absolute path under `dataDir`. */
export function dataDirPaths(dataDir: string) {
  const at = (...parts: string[]) => path.join(dataDir, ...parts);
  return {
    root: dataDir,
    database: at("invariant.db"),
    launcherFile: at("launcher.json"),
    accessTokenFile: at("access-token"),
    /** The private Redis's files: its AOF goes in `dir` too. */
    redis: {
      dir: at("redis"),
      socket: at("redis", "redis.sock"),
      pidFile: at("redis", "redis.pid"),
      logFile: at("redis", "redis.log"),
    },
    deletions: at("deletions"),
    deletion: (owner: { kind: string; id: string }) => at("deletions", `${owner.kind}-${owner.id}.json`),
    environmentLogs: at("logs", "environments"),
    environmentLog: (versionId: string) => at("logs", "environments", `${versionId}.log`),
    snapshots: at("snapshots"),
    snapshot: (snapshotId: string) => snapshotPaths(at("snapshots", checkSnapshotId(snapshotId))),
    study: (studyId: string) => at("studies", studyId),
    testFiles: (studyId: string) => at("studies", studyId, "test-files"),
    workspaces: at("workspaces"),
    workspace: (workspaceId: string) => workspacePaths(at("workspaces", checkWorkspaceId(workspaceId))),
    trial: (trialId: string) => at("trials", trialId),
    trialAttempt: (options: { trialId: string; attempt: number }) =>
      trialAttemptPaths(at("trials", options.trialId, `attempt-${options.attempt}`)),
    gatewaySocket: (workerId: string) => at("gateway", `${workerId}.sock`),
    /** The web process's gateway for terminal sessions: containers mount the folder, so a restart's new socket is seen. */
    sessionGatewayDir: at("gateway", "sessions"),
    /** A terminal session's own files: `control/` (mounted read-only: what to resume) and its saved screen. */
    session: (sessionId: string) => sessionPaths(at("sessions", checkSessionId(sessionId))),
    /**
     * A project's Codex home for its sessions of one mode (conversations persist here; never credentials).
     * Each mode has its own, so what a private copy's agent writes there (AGENTS.md, config) never
     * reaches a direct session. (`sessions/codex-homes/<project>`, shared by every mode, is no longer used.)
     */
    sessionCodexHome: (projectId: string, home: "direct" | "private" | "continue") =>
      at("sessions", "agent-homes", home, checkSessionId(projectId)),
    /** The same for Claude Code's and Gemini CLI's sessions: a home per agent, so no CLI reads another's files. */
    sessionAgentHome: (
      projectId: string,
      home: "direct" | "private" | "continue",
      agent: "claude-code" | "gemini-cli",
    ) => at("sessions", "agent-homes", agent, home, checkSessionId(projectId)),
    applies: at("applies"),
    dependencies: at("dependencies"),
    /** Overlay upper/work folders of running containers that mount installed dependencies (removed with them). */
    dependencyScratch: at("dependencies", "scratch"),
    /** A dependency step's folder: `tree/` is /workspace while the step runs, and keeps its outputs. */
    dependencyDir: (id: string) => {
      const dir = at("dependencies", checkDependencyDirId(id));
      return {
        dir,
        tree: path.join(dir, "tree"),
        /** Its outputs as one bundle a worker on another host fetches (made on first request; the tree never changes). */
        archive: path.join(dir, "archive.bundle"),
        /** The archive's sha256 and size, written after it (archive.json). */
        archiveMeta: path.join(dir, "archive.json"),
      };
    },
    /**
     * A package manager's download cache of one project, shared by that project's dependency steps only
     * (one project's steps cannot plant wheels or metadata for another's). The old `caches/<name>` folders,
     * shared by every project, are no longer mounted.
     */
    cache: (options: { projectId: string; name: string }) => {
      if (!CACHE_NAME.test(options.name))
        throw new AppError({ code: "BAD_REQUEST", message: `"${options.name}" is not a cache name.` });
      return at("caches", "projects", checkSessionId(options.projectId), options.name);
    },
    applyBackup: (recordId: string) => applyBackupPaths(at("applies", checkApplyRecordId(recordId))),
    /** A path under the data dir as journals and rows store it (relative, so the data dir can move). */
    relative: (absolute: string) => path.relative(dataDir, absolute),
    /** The absolute path of what `relative()` stored. */
    absolute: (relative: string) => path.join(dataDir, relative),
  };
}

export type DataDirPaths = ReturnType<typeof dataDirPaths>;
