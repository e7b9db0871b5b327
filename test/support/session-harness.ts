import { Terminal } from "@xterm/headless";
import { openWebCore, type WebCore } from "../../src/server/web/wiring/web-core";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { SessionView } from "../../src/shared/session-schemas";
import { REPO_ROOT } from "./temp";

/** A web core whose terminal sessions are watched by the test: output per session, every change. */
export interface SessionWeb {
  core: WebCore;
  /** A browser-like watcher: attaches, renders the screen and the live bytes in a headless xterm. */
  watch(sessionId: string): Promise<TerminalWatcher>;
  /**
   * Keystrokes as a person types them, once the session runs (the page takes none while it starts): the
   * text, then Enter on its own (a burst with Enter is a paste).
   */
  type(sessionId: string, text: string): Promise<void>;
  waitForState(sessionId: string, state: SessionView["state"], timeoutMs?: number): Promise<SessionView>;
  changes: SessionView[];
  close(): Promise<void>;
}

export interface TerminalWatcher {
  /** The rendered screen and scrollback as plain text. */
  text(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): void;
}

export async function openSessionWeb(options: {
  dataDir: string;
  redisUrl: string;
  runtime: ContainerRuntime;
  upstreamBaseUrl: string;
  apiKey: string;
  /** The scripts `scripted:<script>` sessions get from the bundled scripted model (default: the package's). */
  scriptsDir?: string;
}): Promise<SessionWeb> {
  const listeners = new Map<string, Set<(data: Uint8Array) => void>>();
  const changes: SessionView[] = [];
  const core = await openWebCore({
    root: REPO_ROOT,
    dataDir: options.dataDir,
    redisUrl: options.redisUrl,
    adminToken: "a_sessionadmintokensessionadmin000",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: options.runtime,
    recorderBlockMs: 100,
    sessions: {
      gateway: {
        upstreamBaseUrl: options.upstreamBaseUrl,
        credential: () => ({ apiKey: options.apiKey, source: "OPENAI_API_KEY" }),
      },
      output: (sessionId, data) => {
        for (const listener of listeners.get(sessionId) ?? []) listener(data);
      },
      changed: (session) => changes.push(session),
      ...(options.scriptsDir ? { scriptsDir: options.scriptsDir } : {}),
    },
  });
  await core.start({ sweepEveryMs: 500 });
  return {
    core,
    changes,
    async type(sessionId, text) {
      for (let waited = 0; (await core.services.sessions.get(sessionId)).state === "starting"; waited += 50) {
        if (waited > 20_000) throw new Error(`session ${sessionId} is still starting after 20 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      core.services.sessions.input(sessionId, text);
      await new Promise((resolve) => setTimeout(resolve, 300));
      core.services.sessions.input(sessionId, "\r");
    },
    async waitForState(sessionId, state, timeoutMs = 20_000) {
      const started = Date.now();
      for (;;) {
        const session = await core.services.sessions.get(sessionId);
        if (session.state === state) return session;
        if (Date.now() - started > timeoutMs)
          throw new Error(`session ${sessionId} stayed ${session.state}, not ${state}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async watch(sessionId) {
      const terminal = new Terminal({ cols: 120, rows: 32, scrollback: 2000, allowProposedApi: true });
      const listener = (data: Uint8Array) => terminal.write(data);
      await core.services.sessions.screen(sessionId, (screen) => {
        if (screen) {
          terminal.resize(screen.columns, screen.rows);
          terminal.write(screen.data);
          if (screen.pending) terminal.write(screen.pending); // broadcast already, not on the screen yet
        }
        const set = listeners.get(sessionId) ?? new Set();
        set.add(listener);
        listeners.set(sessionId, set);
      });
      const text = () => {
        const lines: string[] = [];
        const buffer = terminal.buffer.active;
        for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
        return lines.join("\n");
      };
      return {
        text,
        waitFor: (pattern, timeoutMs = 30_000) =>
          new Promise<void>((resolve, reject) => {
            const started = Date.now();
            const poll = () => {
              terminal.write("", () => {
                if (pattern.test(text())) return resolve();
                if (Date.now() - started > timeoutMs)
                  return reject(new Error(`timed out waiting for ${String(pattern)}; the screen:\n${text()}`));
                setTimeout(poll, 50);
              });
            };
            poll();
          }),
        stop: () => listeners.get(sessionId)?.delete(listener),
      };
    },
    close: () => core.close(),
  };
}
