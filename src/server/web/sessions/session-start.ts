import fs from "node:fs";
import { AppError } from "../../core/errors/app-error";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import { dataDirPaths } from "../../core/storage/data-dir";
import { requireProjectFolder } from "../../core/storage/project-folder";
import { containerLimitsOf, type ProjectView } from "../../../shared/project-schemas";
import { startSessionInputSchema, type StartSessionInput } from "../../../shared/session-schemas";
import type { Mount } from "../../core/runtime/container-spec";
import { removeSessionFiles, sessionDependencyMounts } from "./session-dependencies";
import { reclaimCodexHome, sessionHomeOf } from "./codex-home";
import { copyConversations } from "./agent-conversations";
import { agentInstallFor } from "./agent-tui";
import { sessionModelOf } from "./session-agent-choice";
import { prepareSessionHome } from "./session-home";
import { isAgentSession } from "../../../shared/session-schemas";
import { sessionContainerSpec, sessionOwnerOf } from "./session-container";
import type { SessionDeps, TrialOrigin } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";
import { filesOf, type SessionFiles } from "./session-files";
import { fetchThenLaunch, resultImageOf } from "./session-result-image";
import { deliverSessionToken, freshSessionToken, sessionRunId } from "./session-token";
import { checkGitGuard, guardDirectSession } from "./session-git-guard";
import { messageOf } from "../../../shared/error-message";

const projectLock = createKeyedLock();

async function projectOf(deps: SessionDeps, projectId: string): Promise<ProjectView> {
  const project = await deps.projects.findById(projectId);
  if (!project)
    throw new AppError({ code: "NOT_FOUND", field: "projectId", message: `No project with id ${projectId}.` });
  return project;
}

/** The image a new session runs: the trial's committed image when continuing one, else the active environment. */
async function imageOf(deps: SessionDeps, project: ProjectView, origin: TrialOrigin | null) {
  const environment = await deps.environments.active(project.id);
  if (origin) return { ...(await resultImageOf(deps, origin)), environmentVersionId: environment?.id ?? null };
  if (environment?.status !== "ready")
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `${project.name} has no ready environment. Prepare one on the project page, then start the session.`,
    });
  return { image: environment.imageId ?? environment.imageTag, environmentVersionId: environment.id, fetchFrom: null };
}

/** Refuses a second direct session on a project while the first one's lease holds; takes over an expired one. */
async function takeLease(deps: SessionDeps, project: ProjectView, self?: string): Promise<void> {
  const now = deps.clock().getTime();
  for (const holder of await deps.sessions.liveDirect(project.id)) {
    if (holder.id === self) continue;
    const expires = holder.leaseExpiresAt ? Date.parse(holder.leaseExpiresAt) : 0;
    if (expires > now)
      throw new AppError({
        code: "CONFLICT",
        message: `${project.name} already has a direct session, held by ${holder.startedBy} since ${holder.createdAt.slice(0, 16).replace("T", " ")} UTC (session ${holder.id}). Only one session at a time may edit the project directory: finish that one, or start this one as a private copy.`,
      });
    // its holder stopped renewing (a crash): the lease is lost, and its container must not keep editing
    if (holder.containerId) await deps.runtime.stopContainer(holder.containerId, { timeoutSeconds: 2 });
    await checkGitGuard({ deps, record: holder });
    await deps.sessions.update(holder.id, {
      state: "interrupted",
      reason: "Its lease on the project directory expired (the dashboard stopped renewing it).",
      leaseExpiresAt: null,
    });
  }
}

/** A direct session that resumes takes the project's lease again (refused while another one holds it). */
export async function takeLeaseFor(deps: SessionDeps, record: SessionRecord): Promise<void> {
  const project = await projectOf(deps, record.projectId);
  requireProjectFolder(project.hostPath); // the container mounts it again: Docker would make an empty one
  await projectLock(project.id, async () => {
    await takeLease(deps, project, record.id);
    await deps.sessions.update(record.id, { leaseExpiresAt: new Date(deps.clock().getTime() + deps.leaseMs) });
  });
}

/** Starts a session: checks, files, lease, the gateway token, then the container and its terminal. */
export async function startSession(deps: SessionDeps, rawInput: StartSessionInput): Promise<StartingSession> {
  const input = startSessionInputSchema.parse(rawInput);
  const project = await projectOf(deps, input.projectId);
  const origin = input.fromTrialId ? await deps.trialOrigin(input.fromTrialId) : null;
  if (input.fromTrialId && (!origin || origin.projectId !== project.id))
    throw new AppError({
      code: "NOT_FOUND",
      field: "fromTrialId",
      message: `No trial ${input.fromTrialId} in ${project.name}.`,
    });
  const model = sessionModelOf({ ...input, origin, resumeThread: input.resumeTrialThread, project });
  const { image, environmentVersionId, fetchFrom } = await imageOf(deps, project, origin);
  const mode = origin ? "private" : input.mode;
  const resumeThread = input.resumeTrialThread;
  const create = (workspaceId: string | null) =>
    deps.sessions.create({
      projectId: project.id,
      kind: input.kind,
      mode,
      model,
      reasoningEffort: input.reasoningEffort ?? origin?.reasoningEffort ?? project.defaultConfiguration.reasoningEffort,
      startedBy: input.startedBy || deps.hostUser,
      image,
      environmentVersionId,
      workspaceId,
      fromTrialId: origin?.trialId ?? null,
      threadId: origin && resumeThread ? origin.threadId : null,
      network: project.networkMode,
      columns: input.columns,
      rows: input.rows,
      leaseExpiresAt: mode === "direct" ? new Date(deps.clock().getTime() + deps.leaseMs) : null,
    });
  // an image fetched from another host first (a private copy: no lease); the workspace is copied once it is here
  if (origin && fetchFrom) {
    const record = await create(null);
    return fetchThenLaunch({
      ...{ deps, record, project, origin, fetchFrom },
      launch: (files, ready) => launch({ deps, record: ready, project, files, origin, resumeThread }),
    });
  }
  // Docker would create a missing folder to mount, empty and owned by root, and a private session's snapshot is
  // taken from it: refuse before anything is made (a trial's continuation starts from its workspace instead)
  if (!origin) requireProjectFolder(project.hostPath);
  return projectLock(project.id, async () => {
    if (mode === "direct") await takeLease(deps, project);
    const files = await filesOf({ deps, project, mode, origin, image });
    const record = await create(files.workspaceId);
    return launch({ deps, record, project, files, origin, resumeThread });
  });
}

/**
 * A session being started: `record` once its container is created and its terminal attached (state
 * "starting": a browser can watch it start) — or, continuing a trial whose image is on another host, at
 * once, while that image is fetched (session-result-image.ts) — `started` once the container runs, or,
 * when it could not start, the record that says why (never rejects).
 */
export interface StartingSession {
  record: SessionRecord;
  started: Promise<SessionRecord>;
}

/** Creates and starts the container of a new session record; on failure the record says why and nothing runs. */
async function launch(options: {
  deps: SessionDeps;
  record: SessionRecord;
  project: ProjectView;
  files: SessionFiles;
  origin: TrialOrigin | null;
  resumeThread: boolean;
}): Promise<StartingSession> {
  const { deps, record, project, files } = options;
  const paths = dataDirPaths(deps.dataDir);
  const gateway = await deps.gateway();
  let containerId: string | null = null;
  const failed = async (error: unknown): Promise<SessionRecord> => {
    gateway.gateway.revoke(sessionRunId(record.id));
    if (containerId) await deps.runtime.removeContainer(containerId).catch(() => undefined);
    removeSessionFiles(deps, record.id);
    return deps.sessions.update(record.id, {
      state: "finished",
      reason: `Could not start: ${messageOf(error)}`,
      leaseExpiresAt: null,
      endedAt: deps.clock(),
    });
  };
  try {
    const session = paths.session(record.id);
    const home = sessionHomeOf(deps.dataDir, record);
    fs.mkdirSync(session.control, { recursive: true, mode: 0o755 });
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    await reclaimCodexHome({ path: home, dashboardUid: process.getuid?.() });
    if (options.origin?.codexHomePath && options.resumeThread && isAgentSession(record.kind))
      copyConversations({ kind: record.kind, from: options.origin.codexHomePath, to: home });
    prepareSessionHome(deps, record);
    if (record.threadId) fs.writeFileSync(session.resumeThread, record.threadId);
    const dependencyMounts = [
      ...(await sessionDependencyMounts({ deps, record })),
      ...(files.mode === "direct"
        ? guardDirectSession({ deps, sessionId: record.id, projectDir: files.filesPath })
        : []),
    ];
    const spec = specOf({ deps, record, project, files, gatewayDir: gateway.socketDir, dependencyMounts });
    containerId = await deps.creatingRuntime(files.mode === "direct" ? [project.hostPath] : []).createContainer(spec);
    const created = containerId;
    const token = await freshSessionToken(deps, record, project);
    const withContainer = await deps.sessions.update(record.id, { containerId });
    const terminal = await deps.hub.open({
      sessionId: record.id,
      containerId: created,
      columns: record.columns,
      rows: record.rows,
      screenFile: session.screen,
      start: async () => {
        await deps.runtime.startContainer(created);
        await deliverSessionToken({ deps, containerId: created, token });
      },
    });
    // the answer goes out now: the page opens and watches the container start instead of waiting for it
    const started = terminal.started.then(
      () => deps.sessions.update(record.id, { state: "running", lastActivityAt: deps.clock() }),
      failed,
    );
    return { record: withContainer, started };
  } catch (error) {
    const reason = (await failed(error)).reason ?? String(error);
    throw new AppError({
      code: "INTERNAL_SERVER_ERROR",
      message: `The session could not start: ${reason.replace(/^Could not start: /, "")}`,
      cause: error,
    });
  }
}

/** The container spec of a session record (its files, the project's limits and network, the gateway token). */
function specOf(options: {
  deps: SessionDeps;
  record: SessionRecord;
  project: ProjectView;
  files: SessionFiles;
  gatewayDir: string;
  dependencyMounts: Mount[];
}) {
  const { deps, record, project, files } = options;
  const paths = dataDirPaths(deps.dataDir);
  const spec = sessionContainerSpec({
    sessionId: record.id,
    projectId: project.id,
    owner: sessionOwnerOf(deps.dataDir),
    kind: record.kind,
    image: record.image,
    model: record.model ?? "",
    reasoningEffort: record.reasoningEffort,
    hostedTools: project.networkMode === "internet" || project.allowHostedTools,
    filesPath: files.filesPath,
    filesOverlay: files.filesOverlay,
    agentHomePath: sessionHomeOf(deps.dataDir, record),
    install: isAgentSession(record.kind) ? agentInstallFor(record.kind, deps.agentInstalls?.() ?? {}) : null,
    controlPath: paths.session(record.id).control,
    gatewayDir: options.gatewayDir,
    bridgeDir: deps.bridgeDir,
    network: project.networkMode,
    limits: containerLimitsOf(project),
    columns: record.columns,
    rows: record.rows,
    runAsRoot: project.runAsRoot,
    ...(files.mode === "direct" ? { userFrom: files.filesPath } : {}),
  });
  spec.mounts = [
    ...(spec.mounts ?? []),
    ...files.extraMounts.map((mount) => ({ ...mount, readOnly: true })),
    ...options.dependencyMounts,
  ];
  return spec;
}
