import { runPolicy } from "../../core/agents/run-policy";
import { hashRunToken, RUN_TOKEN_PREFIX } from "../../core/gateway/run-tokens";
import type { ProjectView } from "../../../shared/project-schemas";
import type { SessionDeps } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";

/** The gateway's run id of a session (its token, usage and policy). */
export const sessionRunId = (sessionId: string) => `session-${sessionId}`;

/**
 * Where a session container finds its gateway token: a tmpfs (Docker's /dev/shm), written once the
 * container has started. Never the container's environment, which `docker commit` ("Save installed
 * tools") copies into the image's config, and never a host file.
 */
export const SESSION_TOKEN_FILE = "/dev/shm/.invariant-gw-token";

/** A record's token, kept as its hash: its container reads the token from SESSION_TOKEN_FILE (a new one per start). */
const HASHED = "sha256:";
/** A container made before tokens left the environment: it holds its token in its env, so it is never rotated. */
const HASHED_IN_ENV = "env-sha256:";

/** What a session's record keeps of a token issued for its container: the hash, never the token. */
export const storedToken = (token: string) => `${HASHED}${hashRunToken(token)}`;

function policyOf(project: ProjectView | null, record: SessionRecord) {
  return runPolicy({
    // a session's agent is pinned to its API as a trial's is; a shell may run any client (as a command harness)
    harness: { kind: record.kind === "shell" ? "command" : record.kind, model: record.model ?? "" },
    network: record.network,
    allowHostedTools: project?.allowHostedTools ?? false,
  });
}

/** Whether the session's container reads its token from SESSION_TOKEN_FILE (then each start gets a fresh one). */
export function tokenInFile(record: SessionRecord): boolean {
  return record.runTokenHash?.startsWith(HASHED) === true;
}

/**
 * The gateway takes a session's recorded token again, by its hash (after a restart, its container still
 * holds it; after a resume on another network, with that network's policy): its budget and hosted-tools
 * policy follow the project and the network the container is on. A record from before tokens were
 * hashed holds the token itself: it is replaced by its hash here, the first time the web process starts.
 */
export async function issueSessionToken(deps: SessionDeps, record: SessionRecord): Promise<void> {
  let stored = record.runTokenHash;
  if (!stored) return;
  if (stored.startsWith(RUN_TOKEN_PREFIX)) {
    stored = `${HASHED_IN_ENV}${hashRunToken(stored)}`;
    await deps.sessions.update(record.id, { runTokenHash: stored });
  }
  const tokenHash = stored.slice(stored.indexOf(":") + 1);
  const gateway = await deps.gateway();
  const project = await deps.projects.findById(record.projectId);
  gateway.gateway.issueRunToken({
    runId: sessionRunId(record.id),
    tokenHash,
    budgetTokens: project?.runTokenBudget ?? null,
    policy: policyOf(project, record),
  });
}

/** A fresh token for the session's next container start (the old one stops working); the record keeps its hash. */
export async function freshSessionToken(
  deps: SessionDeps,
  record: SessionRecord,
  project: ProjectView | null,
): Promise<string> {
  const gateway = await deps.gateway();
  const token = gateway.gateway.issueRunToken({
    runId: sessionRunId(record.id),
    budgetTokens: project?.runTokenBudget ?? null,
    policy: policyOf(project, record),
  });
  await deps.sessions.update(record.id, { runTokenHash: storedToken(token) });
  return token;
}

/**
 * Hands a started container its token: written into SESSION_TOKEN_FILE by a process in the container (as
 * its user, mode 600, renamed into place so the session script never reads half of it). The token rides
 * in that process's environment only, which neither `docker inspect` of the container nor a commit keeps.
 */
export async function deliverSessionToken(options: {
  deps: SessionDeps;
  containerId: string;
  token: string;
}): Promise<void> {
  const script = `umask 077 && printf %s "$INVARIANT_GW_TOKEN" > ${SESSION_TOKEN_FILE}.new && mv ${SESSION_TOKEN_FILE}.new ${SESSION_TOKEN_FILE}`;
  const result = await options.deps.runtime.exec(options.containerId, ["/bin/sh", "-c", script], {
    env: { INVARIANT_GW_TOKEN: options.token },
  });
  if (result.exitCode !== 0)
    throw new Error(
      `could not hand the session its gateway token in ${SESSION_TOKEN_FILE} (exit code ${result.exitCode}: ${result.output.trim().slice(0, 300)}); the image needs /bin/sh and Docker's /dev/shm`,
    );
}
