// The container runtime's limits watchdog, on a thread of its own (src/server/core/runtime/limits-watchdog.ts
// starts it). It holds the time limit and the disk budget of every container the runtime runs to its
// exit: it measures what each one wrote (Docker's SizeRw, plus the growth of its writable folders, by
// `du` in a child process) every interval, and stops a container the moment it is past its deadline or
// its budget. A worker's main event loop that is busy (a trial flooding its output, hashing, JSON) cannot
// delay either: this loop does nothing else. The main thread only tells it when a container starts and
// asks, once the container ended, what was decided. Plain JavaScript: it runs as is from the package,
// next to the bundle, in tests and in production. It is part of the runtime folder's use of dockerode.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import Docker from "dockerode";

const docker = new Docker(workerData.connection);
/** Docker's stop grace for a container past a limit (then SIGKILL). */
const STOP_GRACE_SECONDS = 2;

/** @type {Map<string, { id: string, timeoutMs: number | null, disk: null | { budgetBytes: number, baseline: number, folders: string[], intervalMs: number }, timer: NodeJS.Timeout | null, poll: NodeJS.Timeout | null, busy: boolean, ended: boolean, timedOut: boolean, overDisk: null | { usedBytes: number, budgetBytes: number }, startedAt: number | null }>} */
const watches = new Map();

function folderBytes(folders) {
  return Promise.all(folders.map((dir) => fs.lstat(dir).then((s) => (s.isDirectory() ? dir : null), () => null))).then(
    (found) => {
      const present = found.filter(Boolean);
      if (present.length === 0) return 0;
      return new Promise((resolve) => {
        // du exits 1 when an entry vanishes while it walks (a container deleting files): its totals still stand
        execFile("du", ["-s", "-k", "-x", ...present], { maxBuffer: 1024 * 1024 }, (_error, stdout) => {
          let kib = 0;
          for (const line of String(stdout ?? "").split("\n")) {
            const value = Number(line.split("\t")[0]);
            if (Number.isFinite(value)) kib += value;
          }
          resolve(kib * 1024);
        });
      });
    },
  );
}

/** What the container wrote: its own layer and its folders' growth since it was created. */
async function writtenBytes(watch) {
  const [info, folders] = await Promise.all([
    docker.getContainer(watch.id).inspect({ size: true }),
    folderBytes(watch.disk.folders),
  ]);
  return (info.SizeRw ?? 0) + folders - watch.disk.baseline;
}

function stop(watch) {
  docker
    .getContainer(watch.id)
    .stop({ t: STOP_GRACE_SECONDS })
    .catch(() => undefined);
}

function measure(watch) {
  if (watch.busy || watch.ended || watch.overDisk) return;
  watch.busy = true;
  writtenBytes(watch)
    .then((usedBytes) => {
      if (watch.ended || watch.overDisk || usedBytes <= watch.disk.budgetBytes) return;
      watch.overDisk = { usedBytes, budgetBytes: watch.disk.budgetBytes };
      stop(watch);
    })
    .catch(() => undefined) // a measurement that fails is skipped; the container may be gone
    .finally(() => (watch.busy = false));
}

/** The container started: its deadline counts from the engine's own start time, the disk checks begin. */
async function started(watch) {
  const info = await docker
    .getContainer(watch.id)
    .inspect()
    .catch(() => null);
  const engineStart = Date.parse(info?.State?.StartedAt ?? "");
  watch.startedAt = Number.isFinite(engineStart) && engineStart > 0 ? engineStart : Date.now();
  if (watch.ended) return;
  if (watch.timeoutMs !== null) {
    const left = Math.max(0, watch.startedAt + watch.timeoutMs - Date.now());
    watch.timer = setTimeout(() => {
      if (watch.ended || watch.overDisk) return;
      watch.timedOut = true;
      stop(watch);
    }, left);
  }
  if (watch.disk) watch.poll = setInterval(() => measure(watch), watch.disk.intervalMs);
}

/** The container ended: nothing more is decided for it; the reply says what was. */
function finish(watch) {
  watch.ended = true;
  if (watch.timer) clearTimeout(watch.timer);
  if (watch.poll) clearInterval(watch.poll);
  watches.delete(watch.id);
  return { timedOut: watch.timedOut && !watch.overDisk, overDisk: watch.overDisk };
}

parentPort.on("message", (message) => {
  if (message.type === "watch") {
    watches.set(message.id, {
      id: message.id,
      timeoutMs: message.timeoutMs,
      disk: message.disk,
      timer: null,
      poll: null,
      busy: false,
      ended: false,
      timedOut: false,
      overDisk: null,
      startedAt: null,
    });
    return;
  }
  const watch = watches.get(message.id);
  if (message.type === "started") {
    if (watch) void started(watch);
    return;
  }
  if (message.type === "finish")
    parentPort.postMessage({ type: "finished", id: message.id, verdict: watch ? finish(watch) : null });
});
