import path from "node:path";
import { Worker as Thread } from "node:worker_threads";
import type Docker from "dockerode";
import { packageRoot } from "../../../lib/package-info";
import type { DiskOverrun } from "./disk-budget";
import { messageOf } from "../../../shared/error-message";

/** What a container may use while it runs: its time limit and its disk budget (with what to measure). */
export interface ContainerLimits {
  timeoutMs: number | null;
  disk: { budgetBytes: number; baseline: number; folders: string[]; intervalMs: number } | null;
}

/** What the watchdog decided for a container: stopped at its deadline, or past its budget (with the figures). */
export interface LimitsVerdict {
  timedOut: boolean;
  overDisk: DiskOverrun | null;
}

export interface LimitsWatch {
  /** The container was started: its deadline counts from the engine's start time. */
  started(): void;
  /** The container ended: what the watchdog decided (null when its thread was lost meanwhile). */
  finish(): Promise<LimitsVerdict | null>;
}

export interface LimitsWatchdog {
  /** Holds a container's limits from now until `finish()`; null when the watchdog's thread cannot run. */
  watch(id: string, limits: ContainerLimits): LimitsWatch | null;
}

/**
 * What the thread needs to reach the same engine as `docker` (its socket, or host, port and TLS files).
 * Only plain values cross to a thread: a default socket path the modem resolves lazily (a function) is
 * left out, and the thread's client resolves it the same way.
 */
function connectionOf(docker: Docker): Docker.DockerOptions {
  const modem = docker.modem as unknown as Record<string, unknown>;
  const keys = ["socketPath", "host", "port", "protocol", "ca", "cert", "key", "version", "timeout"] as const;
  const plain = (value: unknown) =>
    ["string", "number", "boolean"].includes(typeof value) ||
    Buffer.isBuffer(value) ||
    (Array.isArray(value) && value.every((item) => typeof item === "string" || Buffer.isBuffer(item)));
  return Object.fromEntries(keys.flatMap((key) => (plain(modem[key]) ? [[key, modem[key]]] : [])));
}

/**
 * The runtime's limits watchdog (assets/limits-watchdog.mjs): one thread, started on the first watch and
 * unref'd while it watches nothing, that measures and stops containers on its own event loop, so a busy
 * main loop delays neither a time limit nor a disk budget. The main thread posts three messages per
 * container (watch, started, finish); everything timed happens on the thread.
 */
export function createLimitsWatchdog(options: { docker: Docker; log: (message: string) => void }): LimitsWatchdog {
  let thread: Thread | null = null;
  let broken = false;
  const waiting = new Map<string, (verdict: LimitsVerdict | null) => void>();
  let watched = 0;

  const lost = (reason: string) => {
    options.log(`runtime: the limits watchdog stopped (${reason}); limits are held by the main loop until it restarts`);
    thread = null;
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
    watched = 0;
  };
  const ensure = (): Thread | null => {
    if (thread || broken) return thread;
    try {
      const started = new Thread(path.join(packageRoot(), "assets", "limits-watchdog.mjs"), {
        workerData: { connection: connectionOf(options.docker) },
      });
      started.unref();
      started.on("message", (reply: { type: string; id: string; verdict: LimitsVerdict | null }) => {
        const resolve = waiting.get(reply.id);
        waiting.delete(reply.id);
        resolve?.(reply.verdict);
      });
      started.on("error", (error) => lost(error.message));
      started.on("exit", (code) => {
        if (thread === started) lost(`exit code ${code}`);
      });
      thread = started;
    } catch (error) {
      broken = true;
      options.log(`runtime: the limits watchdog cannot start (${messageOf(error)})`);
    }
    return thread;
  };

  return {
    watch(id, limits) {
      const current = ensure();
      if (!current) return null;
      watched += 1;
      current.ref();
      current.postMessage({ type: "watch", id, ...limits });
      let finished: Promise<LimitsVerdict | null> | null = null;
      return {
        started: () => current.postMessage({ type: "started", id }),
        finish() {
          finished ??= new Promise<LimitsVerdict | null>((resolve) => {
            if (thread !== current) return resolve(null);
            waiting.set(id, resolve);
            current.postMessage({ type: "finish", id });
          }).finally(() => {
            watched = Math.max(0, watched - 1);
            if (watched === 0 && thread === current) current.unref();
          });
          return finished;
        },
      };
    },
  };
}
