import { dataDirPaths } from "../../core/storage/data-dir";
import { LIVE_SESSION_STATES } from "../../../shared/session-schemas";
import { LABEL } from "../../core/runtime/container-spec";
import { sessionOwnerOf } from "./session-container";
import { issueSessionToken } from "./session-token";
import type { SessionDiskCheck } from "./session-disk";
import type { SessionDeps } from "./session-deps";
import { finishSession } from "./session-lifecycle";
import { checkGitGuard } from "./session-git-guard";
import { sessionConversation } from "./agent-conversations";
import type { GitGuardWatch } from "./git-guard-watch";
import type { SessionChange, SessionRecord } from "./sessions.queries";

type Tokens = (record: SessionRecord) => Promise<SessionChange["tokens"]>;

/**
 * After a restart of the web process: a session whose container still runs is watched again (its
 * token, its saved screen, then live output); the others are settled — exited, interrupted when their
 * container is gone, and a finish a crash cut short is completed.
 */
export async function reattach(options: {
  deps: SessionDeps;
  baseline: Map<string, SessionRecord["tokens"]>;
  changed: (record: SessionRecord | null) => unknown;
  tokensOf: Tokens;
}): Promise<void> {
  const { deps, changed } = options;
  await removeOrphanSessionContainers(deps);
  // a save of installed tools that a crash cut short: its commit may not have finished
  for (const building of await deps.environments.allBuilding())
    if (building.origin === "session")
      await deps.environments.finish(building.id, {
        status: "failed",
        durationMs: 0,
        error:
          "The dashboard stopped while this version was being saved from a session. Save the session's tools again.",
      });
  for (const record of await deps.sessions.unfinished()) {
    if (record.state === "finishing") {
      changed(await finishSession({ deps, sessionId: record.id, tokens: options.tokensOf }));
      continue;
    }
    if (record.state === "starting" && !record.containerId) {
      // stopped before its container was made (a continue fetching its image from another host): nothing runs
      changed(
        await deps.sessions.update(record.id, {
          state: "finished",
          reason: "Could not start: the dashboard stopped before the session's container was made. Start it again.",
          leaseExpiresAt: null,
          endedAt: deps.clock(),
        }),
      );
      continue;
    }
    const status = record.containerId ? await deps.runtime.containerStatus(record.containerId) : null;
    // what a direct session planted in git while the dashboard was away is undone before anything else
    if (record.mode === "direct") changed((await checkGitGuard({ deps, record })).record);
    await issueSessionToken(deps, record);
    options.baseline.set(record.id, record.tokens);
    if (status?.running && record.containerId) {
      const terminal = await deps.hub.open({
        sessionId: record.id,
        containerId: record.containerId,
        columns: record.columns,
        rows: record.rows,
        screenFile: dataDirPaths(deps.dataDir).session(record.id).screen,
      });
      await terminal.started;
      changed(await deps.sessions.update(record.id, { state: "running" }));
    } else if (LIVE_SESSION_STATES.includes(record.state)) {
      changed(
        await deps.sessions.update(record.id, {
          state: status ? "exited" : "interrupted",
          reason: status
            ? "Its process ended while the dashboard was not running. Resume starts it again."
            : "Its container disappeared while the dashboard was not running.",
          leaseExpiresAt: null,
        }),
      );
    }
  }
}

/**
 * Session containers of this data dir that no unfinished session owns (a crash between creating a
 * container and recording it, or a session finished while its removal failed) are removed; containers
 * of live sessions, of other roles and of other installations are left alone.
 */
export async function removeOrphanSessionContainers(deps: SessionDeps): Promise<string[]> {
  const owner = sessionOwnerOf(deps.dataDir);
  const kept = new Set(
    (await deps.sessions.unfinished()).flatMap((record) => (record.containerId ? [record.containerId] : [])),
  );
  const removed: string[] = [];
  for (const container of await deps.runtime.listManagedContainers()) {
    if (container.labels[LABEL.role] !== "session" || container.labels[LABEL.sessionOwner] !== owner) continue;
    if (kept.has(container.id)) continue;
    await deps.runtime.removeContainer(container.id);
    removed.push(container.id);
    deps.log(
      `sessions: removed the container of session ${container.labels[LABEL.session] ?? "?"}, which no unfinished session owns`,
    );
  }
  return removed;
}

/**
 * Every few seconds: undoes what direct sessions changed in what git runs on the host, renews their
 * leases, records tokens, the agent's conversation and activity (telling browsers when the thread or tokens moved), stops idle sessions and sessions past their disk budget (the disk
 * check keeps why, for the exit to record).
 */
export async function keepUp(options: {
  deps: SessionDeps & { idleStopMs: number };
  lastActivity: Map<string, number>;
  tokensOf: Tokens;
  disk: SessionDiskCheck;
  gitGuard: GitGuardWatch;
  /** Browsers hear of a session whose thread or tokens moved. */
  changed: (record: SessionRecord | null) => unknown;
}): Promise<void> {
  const { deps, lastActivity } = options;
  const now = deps.clock().getTime();
  const unfinished = await deps.sessions.unfinished();
  options.gitGuard.sync(unfinished);
  for (const found of unfinished) {
    if (found.state !== "running") continue;
    // what git runs on the host, checked while a direct session runs (the user may run git there meanwhile)
    // a session stopped for what it changed is recorded as it exits
    if (found.mode === "direct" && (await options.gitGuard.check(found.id))) continue;
    const record = found;
    const active = lastActivity.get(record.id);
    const idleFor = now - (active ?? Date.parse(record.lastActivityAt));
    if (idleFor > deps.idleStopMs && record.containerId) {
      deps.log(`sessions: stopping ${record.id}, idle for ${Math.round(idleFor / 60_000)} min`);
      await deps.runtime.stopContainer(record.containerId, { timeoutSeconds: 5 });
      continue; // the terminal hub records its exit
    }
    const budget = (await deps.projects.findById(record.projectId))?.diskBudgetBytes ?? null;
    const overrun = budget && record.containerId ? await options.disk.overrun(record, budget) : null;
    if (overrun && record.containerId) {
      const reason = options.disk.stopping(record.id, overrun);
      deps.log(`sessions: stopping ${record.id}: ${reason}`);
      await deps.runtime.stopContainer(record.containerId, { timeoutSeconds: 5 });
      continue;
    }
    const tokens = await options.tokensOf(record);
    const threadId = sessionConversation(deps.dataDir, record);
    const updated = await deps.sessions.update(record.id, {
      tokens,
      threadId,
      ...(active ? { lastActivityAt: new Date(active) } : {}),
      ...(record.mode === "direct" ? { leaseExpiresAt: new Date(now + deps.leaseMs) } : {}),
    });
    // the page's Thread and Tokens fill in as the agent replies, not only when it exits
    if (threadId !== record.threadId || !sameTokens(tokens, record.tokens)) options.changed(updated);
  }
}

function sameTokens(a: SessionChange["tokens"], b: SessionRecord["tokens"]): boolean {
  return (
    a?.inputTokens === b.input &&
    a.outputTokens === b.output &&
    a.cachedInputTokens === b.cachedInput &&
    a.reasoningTokens === b.reasoning
  );
}
