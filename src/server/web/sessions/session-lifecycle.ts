import fs from "node:fs";
import { AppError } from "../../core/errors/app-error";
import { dataDirPaths } from "../../core/storage/data-dir";
import { ENDING_SESSION_STATES, isAgentSession, RESUMABLE_SESSION_STATES } from "../../../shared/session-schemas";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import { sessionConversation } from "./agent-conversations";
import { prepareSessionHome } from "./session-home";
import { deliverSessionToken, freshSessionToken, issueSessionToken, sessionRunId, tokenInFile } from "./session-token";
import { checkGitGuard, resnapshotGitGuard } from "./session-git-guard";
import { removeSessionFiles } from "./session-dependencies";
import type { SessionDeps } from "./session-deps";
import type { SessionChange, SessionRecord } from "./sessions.queries";
import { addUsage, ZERO_USAGE } from "../../../shared/token-usage";

export async function sessionOf(deps: SessionDeps, sessionId: string): Promise<SessionRecord> {
  const record = await deps.sessions.find(sessionId);
  if (!record) throw new AppError({ code: "NOT_FOUND", message: `No session ${sessionId}.` });
  return record;
}

/** The session's tokens: what was recorded before plus what the gateway metered since it last issued the token. */
export function meteredTokens(
  deps: SessionDeps,
  record: SessionRecord,
  baseline: Map<string, SessionRecord["tokens"]>,
) {
  return async (): Promise<SessionChange["tokens"]> => {
    const gateway = await deps.gateway();
    const used = gateway.gateway.usage(sessionRunId(record.id)) ?? ZERO_USAGE;
    const before = baseline.get(record.id) ?? record.tokens;
    return addUsage(
      {
        inputTokens: before.input,
        cachedInputTokens: before.cachedInput,
        outputTokens: before.output,
        reasoningTokens: before.reasoning,
      },
      used,
    );
  };
}

/** What the end of a session's process leaves recorded: the thread it worked on, its tokens, "exited". */
export async function recordExit(options: {
  deps: SessionDeps;
  sessionId: string;
  exitCode: number;
  tokens: (record: SessionRecord) => Promise<SessionChange["tokens"]>;
  /** Why the dashboard stopped it (its disk budget), instead of "it ended". */
  stoppedBecause?: string | undefined;
}): Promise<SessionRecord | null> {
  const { deps } = options;
  const found = await deps.sessions.find(options.sessionId);
  if (!found || ENDING_SESSION_STATES.includes(found.state)) return null;
  await deps.hub.close(found.id);
  const { record } = await checkGitGuard({ deps, record: found });
  const threadId = sessionConversation(deps.dataDir, record);
  return deps.sessions.update(record.id, {
    state: "exited",
    reason:
      options.stoppedBecause ??
      `${isAgentSession(record.kind) ? HARNESS_INFO[record.kind].label : "The shell"} ended (exit code ${options.exitCode}). Resume starts it again with the same files${threadId ? ", continuing the conversation" : ""}.`,
    threadId,
    tokens: await options.tokens(record),
    leaseExpiresAt: null,
  });
}

/** Starts an exited session's container again: the same files, and for an agent its resume of the conversation. */
export async function resumeSession(options: {
  deps: SessionDeps;
  sessionId: string;
  takeLease: (record: SessionRecord) => Promise<void>;
}): Promise<SessionRecord> {
  const { deps } = options;
  const record = await sessionOf(deps, options.sessionId);
  if (!RESUMABLE_SESSION_STATES.includes(record.state))
    throw new AppError({
      code: "CONFLICT",
      message: `Session ${record.id} is ${record.state}; only an exited session can be resumed.`,
    });
  const status = record.containerId ? await deps.runtime.containerStatus(record.containerId) : null;
  if (!record.containerId || !status)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Session ${record.id}'s container is gone, so it cannot be resumed. Finish it and start a new session (its conversation can still be resumed there).`,
    });
  if (record.mode === "direct") await options.takeLease(record);
  const network = await followNetworkMode({ deps, record, containerId: record.containerId, running: status.running });
  const control = dataDirPaths(deps.dataDir).session(record.id);
  fs.mkdirSync(control.control, { recursive: true, mode: 0o755 });
  if (record.threadId) fs.writeFileSync(control.resumeThread, record.threadId);
  else fs.rmSync(control.resumeThread, { force: true });
  // what the agent's home must say before its TUI starts, again (the agent may have changed it meanwhile)
  if (!status.running) prepareSessionHome(deps, record);
  const containerId = record.containerId;
  resnapshotGitGuard(deps, record);
  // a container that starts again gets a new token (its /dev/shm is new); one made before tokens left the environment keeps its own
  const token =
    !status.running && tokenInFile(record)
      ? await freshSessionToken(deps, { ...record, network }, await deps.projects.findById(record.projectId))
      : null;
  const start = async () => {
    await deps.runtime.startContainer(containerId);
    if (token) await deliverSessionToken({ deps, containerId, token });
  };
  const terminal = await deps.hub.open({
    sessionId: record.id,
    containerId,
    columns: record.columns,
    rows: record.rows,
    screenFile: control.screen,
    ...(status.running ? {} : { start }),
  });
  await terminal.started;
  return deps.sessions.update(record.id, { state: "running", reason: null, network, lastActivityAt: deps.clock() });
}

/**
 * The project's network mode as of now: a change made while the session ran applies when it resumes
 * (its stopped container moves to the new network, and the gateway's policy for it follows).
 */
async function followNetworkMode(options: {
  deps: SessionDeps;
  record: SessionRecord;
  containerId: string;
  running: boolean;
}): Promise<SessionRecord["network"]> {
  const { deps, record } = options;
  const project = await deps.projects.findById(record.projectId);
  if (!project || project.networkMode === record.network || options.running) return record.network;
  await deps.runtime.switchNetwork(options.containerId, { projectId: project.id, network: project.networkMode });
  await issueSessionToken(deps, { ...record, network: project.networkMode });
  deps.log(`session ${record.id}: network ${record.network} → ${project.networkMode} (the project's mode changed)`);
  return project.networkMode;
}

/**
 * Ends a session for good: "finishing" is recorded before anything is removed, so a crash midway is
 * finished by repeating this. The container goes; a private copy's workspace stays as a reviewable result.
 */
export async function finishSession(options: {
  deps: SessionDeps;
  sessionId: string;
  tokens: (record: SessionRecord) => Promise<SessionChange["tokens"]>;
}): Promise<SessionRecord> {
  const { deps } = options;
  let record = await sessionOf(deps, options.sessionId);
  if (record.state === "finished") return record;
  record = await deps.sessions.update(record.id, { state: "finishing", leaseExpiresAt: null });
  await deps.hub.close(record.id);
  const tokens = await options.tokens(record);
  if (record.containerId) await deps.runtime.removeContainer(record.containerId);
  ({ record } = await checkGitGuard({ deps, record }));
  (await deps.gateway()).gateway.forget(sessionRunId(record.id));
  removeSessionFiles(deps, record.id);
  return deps.sessions.update(record.id, {
    state: "finished",
    tokens,
    endedAt: deps.clock(),
    reason:
      record.mode === "private" && record.workspaceId
        ? "Finished; its changes are kept to review and apply to the project."
        : "Finished.",
  });
}
