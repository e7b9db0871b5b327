import { createKeyedLock } from "../../core/locks/keyed-lock";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { SessionLastScreen, SessionView, StartSessionInput } from "../../../shared/session-schemas";
import { lastScreenOf } from "./last-screen";
import { toSessionView, type SessionDeps } from "./session-deps";
import { finishSession, meteredTokens, recordExit, resumeSession, sessionOf } from "./session-lifecycle";
import { installedToolsChanges, saveInstalledTools } from "./session-tools";
import { startSession, takeLeaseFor } from "./session-start";
import { keepUp, reattach } from "./session-upkeep";
import { createGitGuardWatch } from "./git-guard-watch";
import { createSessionDiskCheck } from "./session-disk";
import type { SessionRecord } from "./sessions.queries";
import type { ScreenNow } from "./terminal-hub";
import { messageOf } from "../../../shared/error-message";

/** Upkeep runs this often: direct sessions' leases, idle sessions, token counts. */
const UPKEEP_EVERY_MS = 5_000;

/**
 * Terminal sessions: start, watch, type, resize, resume, finish, save installed tools. The web process
 * owns them (it is the database's writer and keeps their screens); their containers outlive it, and a
 * restarted web process reattaches to them (`reattach`).
 */
export function createSessionService(deps: SessionDeps & { idleStopMs: number }) {
  const watchers = new Map<string, number>();
  const baseline = new Map<string, SessionRecord["tokens"]>();
  const lastActivity = new Map<string, number>();
  const disk = createSessionDiskCheck(deps);
  const reattached = createGate();
  // a browser that fits its terminal sends several sizes at once: they reach the TTY in the order sent
  const resizing = createKeyedLock();
  const tokensOf = (record: SessionRecord) => meteredTokens(deps, record, baseline)();
  const { view, changed, gitGuard } = sessionChanges(deps, watchers);
  const upkeep = periodicUpkeep(() => keepUp({ deps, lastActivity, tokensOf, disk, gitGuard, changed }), deps.log);
  const find = (sessionId: string) => sessionOf(deps, sessionId);
  return {
    async onExit(sessionId: string, exitCode: number) {
      const stoppedBecause = disk.stoppedBecause(sessionId) ?? gitGuard.stoppedBecause(sessionId);
      changed(await recordExit({ deps, sessionId, exitCode, tokens: tokensOf, stoppedBecause }));
    },
    onActivity(sessionId: string) {
      lastActivity.set(sessionId, deps.clock().getTime());
    },
    async start(input: StartSessionInput): Promise<SessionView> {
      const { record, started } = await startSession(deps, input);
      baseline.set(record.id, record.tokens);
      // running (or why it could not start) follows as a change: lists and its page hear of it
      started.then(changed, (error: unknown) => deps.log(`sessions: ${record.id}: ${messageOf(error)}`));
      return view(changed(record) ?? record);
    },
    async list(input: { projectId?: string }): Promise<SessionView[]> {
      return (await deps.sessions.list(input)).map(view);
    },
    async get(sessionId: string): Promise<SessionView> {
      return view(await find(sessionId));
    },
    async resume(sessionId: string): Promise<SessionView> {
      const record = await resumeSession({ deps, sessionId, takeLease: (held) => takeLeaseFor(deps, held) });
      return view(changed(record) ?? record);
    },
    async finish(sessionId: string): Promise<SessionView> {
      const record = await finishSession({ deps, sessionId, tokens: tokensOf });
      return view(changed(record) ?? record);
    },
    saveInstalledTools: (sessionId: string) => saveInstalledTools({ deps, sessionId }),
    /** What "Save installed tools" would keep: the container's changes outside /workspace and /tmp. */
    installedToolsChanges: (sessionId: string) => installedToolsChanges({ deps, sessionId }),
    /** The screen a session's terminal showed last, as text (null: none was saved). */
    async lastScreen(sessionId: string): Promise<SessionLastScreen | null> {
      await find(sessionId);
      return lastScreenOf(dataDirPaths(deps.dataDir).session(sessionId).screen);
    },
    /** The screen now and the bytes broadcast after it, then (inside `ready`) the caller joins the live output. */
    async screen(sessionId: string, ready: (screen: ScreenNow | null, session: SessionView) => void) {
      await Promise.race([reattached.opened, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      const record = await find(sessionId);
      deps.hub.screen(
        sessionId,
        (screen) => ready(screen, view(record)),
        dataDirPaths(deps.dataDir).session(sessionId).screen,
      );
    },
    input: (sessionId: string, data: string) => reattached.run(() => deps.hub.input(sessionId, data)),
    /** Sizes a running session's TTY; answers whether it did (a session that does not run keeps its size). */
    resize: (input: { sessionId: string; columns: number; rows: number }) =>
      resizing(input.sessionId, async () => {
        const record = await find(input.sessionId);
        if (!record.containerId || record.state !== "running") return false;
        await deps.hub.resize({ ...input, containerId: record.containerId });
        await deps.sessions.update(record.id, { columns: input.columns, rows: input.rows });
        return true;
      }),
    /** A browser started (+1) or stopped (−1) watching a session. */
    watch: (sessionId: string, delta: 1 | -1) => count(watchers, sessionId, delta),
    async begin() {
      try {
        await reattach({ deps, baseline, changed, tokensOf });
      } finally {
        reattached.open();
      }
      upkeep.start();
    },
    /** Stops watching (the containers keep running for the next start) and saves every screen. */
    async close() {
      await upkeep.stop();
      gitGuard.close();
      await deps.hub.closeAll();
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;

/** A session's view (with its watchers), and its changes: browsers hear of them, and a direct one that runs is watched by the git guard. */
function sessionChanges(deps: SessionDeps, watchers: Map<string, number>) {
  const view = (record: SessionRecord): SessionView => toSessionView(record, watchers.get(record.id) ?? 0);
  const gitGuard = createGitGuardWatch({
    deps,
    changed: (record) => {
      if (record) deps.changed(view(record));
    },
  });
  const changed = (record: SessionRecord | null) => {
    if (record) {
      deps.changed(view(record));
      gitGuard.watch(record);
    }
    return record;
  };
  return { view, changed, gitGuard };
}

/** Runs `task` every UPKEEP_EVERY_MS once started (a failure is logged); `stop` runs it a last time. */
function periodicUpkeep(task: () => Promise<void>, log: (message: string) => void) {
  let timer: NodeJS.Timeout | null = null;
  const run = () => task().catch((error: unknown) => log(`sessions: ${messageOf(error)}`));
  return {
    start() {
      timer = setInterval(() => void run(), UPKEEP_EVERY_MS);
    },
    async stop() {
      if (timer) clearInterval(timer);
      await run();
    },
  };
}

/**
 * Watchers and keystrokes wait until a restarted web process has reattached to running sessions: work
 * given before `open()` runs then, in order; after it, at once.
 */
function createGate() {
  let isOpen = false;
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    opened,
    open() {
      isOpen = true;
      open();
    },
    run(task: () => unknown) {
      if (isOpen) task();
      else void opened.then(task);
    },
  };
}

function count(counts: Map<string, number>, key: string, delta: number): void {
  const next = Math.max(0, (counts.get(key) ?? 0) + delta);
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
