import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp";
import { childrenOf, isAlive, launch, signalProcess, type Launched } from "./support/launch";

/**
 * Issue 18, drill 1: the launcher and its terminal. A closed terminal (SIGHUP) and an output reader
 * that went away (a parent that exited, a closed pipe) must stop it cleanly, within its deadline, at
 * low CPU, with nothing it started left running.
 */
const STOP_DEADLINE_MS = 40_000;
const running: Launched[] = [];
const started: number[] = [];

afterAll(() => {
  for (const app of running) if (app.child.exitCode === null) app.child.kill("SIGKILL");
  for (const pid of started.filter(isAlive)) process.kill(pid, "SIGKILL");
});

async function start(dataDir = tempDir("signals")): Promise<Launched> {
  const app = await launch({ dataDir, detached: true });
  running.push(app);
  // steady state: the worker is online (its line comes after the URL)
  await expect.poll(() => app.stderr(), { timeout: 60_000 }).toMatch(/worker \S+ online/);
  started.push(...app.childPids());
  return app;
}

/** CPU time a process used so far, in clock ticks (utime + stime); null once it is gone. */
function cpuTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Waits for the exit; fails past the deadline. Returns the exit code and how long it took. */
async function exitWithin(app: Launched, ms: number): Promise<{ code: number | null; tookMs: number }> {
  const begin = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    app.exited,
    new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms))),
  ]);
  clearTimeout(timer);
  if (code === "late") throw new Error(`the launcher did not exit within ${ms} ms; stderr:\n${app.stderr()}`);
  return { code, tookMs: Date.now() - begin };
}

describe("launcher signals and broken pipes", () => {
  it("SIGHUP to its process group (the terminal closed) stops it like SIGTERM: worker and private Redis stopped", async () => {
    const app = await start();
    const children = app.childPids();
    expect(children.length).toBe(2); // worker + private Redis
    signalProcess(app.child.pid, "SIGHUP", { group: true });
    const { code } = await exitWithin(app, STOP_DEADLINE_MS);
    expect(code).toBe(0);
    expect(app.stderr()).toContain("stopping (SIGHUP)");
    for (const pid of children) expect(isAlive(pid), `child ${pid} still running`).toBe(false);
  });

  it("Ctrl-C in its terminal (SIGINT to its process group) stops it in order: Redis is stopped last, not first", async () => {
    const app = await start();
    const children = app.childPids();
    signalProcess(app.child.pid, "SIGINT", { group: true });
    const { code } = await exitWithin(app, STOP_DEADLINE_MS);
    expect(code).toBe(0);
    expect(app.stderr()).toContain("stopping (SIGINT)");
    // with Redis gone first, the sweeper failed on every tick and the web server's close waited 10 s for it
    expect(app.stderr()).not.toMatch(/did not close within|max retries per request/);
    for (const pid of children) expect(isAlive(pid), `child ${pid} still running`).toBe(false);
  });

  it("SIGHUP to the launcher alone stops everything it started too", async () => {
    const app = await start();
    const children = app.childPids();
    app.child.kill("SIGHUP");
    expect((await exitWithin(app, STOP_DEADLINE_MS)).code).toBe(0);
    for (const pid of children) expect(isAlive(pid), `child ${pid} still running`).toBe(false);
  });

  it("an output reader that went away: writes are dropped, nothing dies or spins, SIGTERM still stops it all", async () => {
    const app = await start();
    const pid = app.child.pid ?? -1;
    const children = app.childPids();
    // the reader of its stdout and stderr exits: every later write fails with EPIPE
    app.child.stdout?.destroy();
    app.child.stderr?.destroy();
    // the dashboard still answers
    expect((await fetch(`${app.base}/api/health`)).status).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // nothing died of the broken pipe, and the launcher is idle, not spinning
    for (const child of [pid, ...children]) expect(isAlive(child), `process ${child} died`).toBe(true);
    const before = cpuTicks(pid) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((cpuTicks(pid) ?? 0) - before, "CPU ticks in 2 s while idle").toBeLessThan(60);
    signalProcess(pid, "SIGTERM", { group: true }); // what a parent's Ctrl-C or a process manager does: the whole group
    // its shutdown logs to the dead stderr: dropped, and the shutdown completes
    let peak = 0;
    const sampler = setInterval(() => {
      const ticks = cpuTicks(pid);
      if (ticks !== null) peak = Math.max(peak, ticks);
    }, 200);
    const { tookMs } = await exitWithin(app, STOP_DEADLINE_MS).finally(() => clearInterval(sampler));
    expect(tookMs).toBeLessThan(STOP_DEADLINE_MS);
    for (const child of children) expect(isAlive(child), `child ${child} still running`).toBe(false);
    expect(childrenOf(pid)).toEqual([]);
  });

  it("SIGKILL, which it cannot handle: its worker and private Redis still do not outlive it", async () => {
    const app = await start();
    const children = app.childPids();
    app.child.kill("SIGKILL");
    // the worker sees its IPC channel close and stops (bounded by its own deadline); Redis gets SIGTERM from the kernel
    await expect.poll(() => children.filter(isAlive), { timeout: 45_000 }).toEqual([]);
  });

  it("stderr broken before the worker dies: the launcher notes it silently, keeps serving and still stops it all", async () => {
    const app = await start();
    const pid = app.child.pid ?? -1;
    const children = app.childPids();
    app.child.stderr?.destroy();
    app.child.stdout?.destroy();
    const worker = children.find((child) => fs.readFileSync(`/proc/${child}/cmdline`, "utf8").includes("worker"));
    signalProcess(worker, "SIGKILL"); // the launcher logs the worker's exit to its dead stderr
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(isAlive(pid)).toBe(true);
    const before = cpuTicks(pid) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((cpuTicks(pid) ?? 0) - before, "CPU ticks in 2 s after the worker died").toBeLessThan(60);
    expect((await fetch(`${app.base}/api/health`)).status).toBeLessThan(600);
    const left = childrenOf(pid);
    app.child.kill("SIGTERM");
    await exitWithin(app, STOP_DEADLINE_MS);
    for (const child of [...children, ...left]) expect(isAlive(child), `child ${child} still running`).toBe(false);
  });
});
