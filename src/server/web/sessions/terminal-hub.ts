import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type * as XtermHeadless from "@xterm/headless";
import type { Terminal } from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import type { ContainerRuntime, ContainerTty } from "../../core/runtime/container-runtime";
import { createScreenFeed, type ScreenFeed } from "./screen-feed";
import { messageOf } from "../../../shared/error-message";

// @xterm/headless is CommonJS whose named exports Node's ESM loader cannot detect (the bundled dashboard
// failed to start on `import { Terminal }`): load it with require
const { Terminal: HeadlessTerminal } = createRequire(import.meta.url)("@xterm/headless") as typeof XtermHeadless;

/** How much scrollback the server keeps per session (what a reattaching browser gets back). */
const SCROLLBACK_LINES = 2_000;
const SAVE_SCREEN_AFTER_MS = 1_000;

export interface ScreenState {
  data: string;
  columns: number;
  rows: number;
}

/** A screen for a watcher that joins now, and the bytes already broadcast that it does not hold yet. */
export interface ScreenNow extends ScreenState {
  pending: Uint8Array | null;
}

interface LiveTerminal {
  terminal: Terminal;
  serializer: SerializeAddon;
  input: NodeJS.WritableStream;
  detach: () => void;
  saveTimer: NodeJS.Timeout | null;
  screenFile: string;
  /** The output on its way into `terminal` (it parses it a little later, a flood once it pauses). */
  feed: ScreenFeed;
}

/** An open terminal; `started` settles once its container is started (when the hub had to start it) and sized. */
export interface Attached {
  started: Promise<void>;
}

interface HubDeps {
  runtime: ContainerRuntime;
  /** Output bytes of a session, after the server's screen took them (watchers get them in order). */
  broadcast: (sessionId: string, data: Uint8Array) => void;
  /** The container's process ended (its exit code). */
  onExit: (sessionId: string, exitCode: number) => void;
  /** Some output or input happened (for the idle timer and "last activity"). */
  onActivity?: (sessionId: string) => void;
  log?: (message: string) => void;
}

function screenOf(entry: LiveTerminal): ScreenState {
  return {
    data: entry.serializer.serialize({ scrollback: SCROLLBACK_LINES }),
    columns: entry.terminal.cols,
    rows: entry.terminal.rows,
  };
}

/** Saves the screen beside the session (written whole, then renamed: never half a file). */
function writeScreen(entry: LiveTerminal, log?: (message: string) => void): void {
  const temporary = `${entry.screenFile}.tmp`;
  try {
    fs.mkdirSync(path.dirname(entry.screenFile), { recursive: true });
    fs.writeFileSync(temporary, JSON.stringify(screenOf(entry)));
    fs.renameSync(temporary, entry.screenFile);
  } catch (error) {
    log?.(`sessions: could not save a screen: ${messageOf(error)}`);
  }
}

export function readScreen(file: string): ScreenState | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ScreenState>;
    if (typeof parsed.data !== "string" || typeof parsed.columns !== "number" || typeof parsed.rows !== "number")
      return null;
    return { data: parsed.data, columns: parsed.columns, rows: parsed.rows };
  } catch {
    return null;
  }
}

/** One attachment to a session container, with the headless terminal that keeps its screen. */
async function attachTerminal(options: {
  deps: HubDeps;
  live: Map<string, LiveTerminal>;
  sessionId: string;
  containerId: string;
  columns: number;
  rows: number;
  screenFile: string;
  start?: () => Promise<void>;
}): Promise<Attached> {
  const { deps, sessionId } = options;
  const terminal = new HeadlessTerminal({
    cols: options.columns,
    rows: options.rows,
    scrollback: SCROLLBACK_LINES,
    allowProposedApi: true,
  });
  const serializer = new SerializeAddon();
  terminal.loadAddon(serializer);
  const saved = readScreen(options.screenFile);
  if (saved) terminal.write(saved.data);
  // attached before it starts, as `docker run -it` does: the program's first bytes (a shell's prompt) are not lost
  const tty = await deps.runtime.attachTty(options.containerId);
  const entry: LiveTerminal = {
    terminal,
    serializer,
    input: tty.stream,
    detach: tty.detach,
    saveTimer: null,
    screenFile: options.screenFile,
    feed: createScreenFeed(terminal),
  };
  // watchable from now on: a browser that attaches while the container starts gets its first bytes
  options.live.set(sessionId, entry);
  relayOutput({ deps, sessionId, entry, tty });
  const started = (async () => {
    if (options.start)
      await options.start().catch((error: unknown) => {
        if (options.live.get(sessionId) === entry) options.live.delete(sessionId);
        tty.detach();
        entry.feed.dispose();
        terminal.dispose();
        throw error;
      });
    await deps.runtime.resizeTty(options.containerId, { columns: options.columns, rows: options.rows });
    watchExit({ deps, live: options.live, sessionId, containerId: options.containerId, entry });
  })();
  return { started };
}

/** The container's output to watchers and to the server's terminal; the terminal's replies back to the program. */
function relayOutput(options: { deps: HubDeps; sessionId: string; entry: LiveTerminal; tty: ContainerTty }): void {
  const { deps, sessionId, entry, tty } = options;
  // the server's terminal answers the program's queries (cursor position, device attributes, colours),
  // so a TUI works the same with no browser, a read-only one, or several; browsers do not answer them
  entry.terminal.onData((reply) => tty.stream.write(reply));
  tty.stream.on("data", (chunk: Buffer) => {
    // watchers get the bytes at once; the server's terminal parses them meanwhile, or after a flood
    const bytes = new Uint8Array(chunk);
    deps.broadcast(sessionId, bytes);
    entry.feed.add(bytes);
    deps.onActivity?.(sessionId);
    entry.saveTimer ??= setTimeout(() => {
      entry.saveTimer = null;
      writeScreen(entry, deps.log);
    }, SAVE_SCREEN_AFTER_MS);
  });
  tty.stream.on("error", () => undefined);
}

/** Once the program ends: its last bytes taken, the screen saved, `onExit` told (unless closed meanwhile). */
function watchExit(options: {
  deps: HubDeps;
  live: Map<string, LiveTerminal>;
  sessionId: string;
  containerId: string;
  entry: LiveTerminal;
}): void {
  const { deps, live, sessionId, entry } = options;
  deps.runtime.waitForExit(options.containerId).then(
    (exitCode) =>
      // the last bytes first: the attach stream may end after the process
      entry.feed.settled().then(() => {
        if (live.get(sessionId) !== entry) return;
        writeScreen(entry, deps.log);
        deps.onExit(sessionId, exitCode);
      }),
    (error: unknown) => deps.log?.(`sessions: lost a container: ${messageOf(error)}`),
  );
}

/**
 * The server side of every open session's terminal: one attachment to the container's TTY, and a
 * headless xterm that keeps the screen (not an unbounded log), so any browser that attaches later gets
 * the current screen and then the live bytes. The screen is also saved to the session's folder, so a
 * restarted web process shows it again before new output arrives.
 */
export function createTerminalHub(deps: HubDeps) {
  const live = new Map<string, LiveTerminal>();

  const close = async (sessionId: string): Promise<void> => {
    const entry = live.get(sessionId);
    if (!entry) return;
    live.delete(sessionId);
    if (entry.saveTimer) clearTimeout(entry.saveTimer);
    entry.detach();
    // the bytes already broadcast are on the saved screen too
    await entry.feed.settled();
    writeScreen(entry, deps.log);
    entry.feed.dispose();
    entry.terminal.dispose();
  };

  return {
    /**
     * Attaches to a session container; `screenFile` holds (and receives) its saved screen. `start` starts
     * a stopped container once attached (else it must be running). Answers once attached, so watchers can
     * join while the container starts; `started` says when it runs (or why it could not start).
     */
    async open(options: {
      sessionId: string;
      containerId: string;
      columns: number;
      rows: number;
      screenFile: string;
      start?: () => Promise<void>;
    }): Promise<Attached> {
      await close(options.sessionId);
      return attachTerminal({ deps, live, ...options });
    },

    isOpen: (sessionId: string) => live.has(sessionId),

    /**
     * Calls `ready` with the screen the server's terminal holds now and the bytes already broadcast that
     * it has not parsed yet (send both, in that order); the next broadcast comes after `ready` returns, so
     * a watcher that joins inside `ready` misses nothing and sees nothing twice. A session that is not
     * open gets its saved screen (or null).
     */
    screen(sessionId: string, ready: (screen: ScreenNow | null) => void, screenFile?: string) {
      const entry = live.get(sessionId);
      if (!entry) {
        const saved = screenFile ? readScreen(screenFile) : null;
        return ready(saved ? { ...saved, pending: null } : null);
      }
      ready({ ...screenOf(entry), pending: entry.feed.pending() });
    },

    input(sessionId: string, data: string): boolean {
      const entry = live.get(sessionId);
      if (!entry) return false;
      entry.input.write(data);
      deps.onActivity?.(sessionId);
      return true;
    },

    async resize(options: { sessionId: string; containerId: string; columns: number; rows: number }) {
      live.get(options.sessionId)?.terminal.resize(options.columns, options.rows);
      await deps.runtime.resizeTty(options.containerId, { columns: options.columns, rows: options.rows });
    },

    /** Stops watching the container (it keeps running); the screen is saved first. */
    close,

    async closeAll() {
      await Promise.all([...live.keys()].map(close));
    },
  };
}

export type TerminalHub = ReturnType<typeof createTerminalHub>;
