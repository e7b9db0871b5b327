import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { HealthReport } from "../src/shared/system-health";
import { tempDir } from "./support/temp";
import { isAlive, launch, signalProcess, type Launched } from "./support/launch";

/**
 * Issue 18, drill 2: the launcher keeps its private Redis and its worker child running. Each is killed
 * with SIGKILL on the real stack; it comes back, the restart is logged and counted, and the dashboard
 * works through it. A worker that keeps dying turns health degraded.
 */
const running: Launched[] = [];
afterAll(async () => {
  for (const app of running) await app.stop("SIGTERM");
});

async function start(dataDir = tempDir("supervision")): Promise<Launched> {
  const app = await launch({ dataDir, detached: true });
  running.push(app);
  await expect.poll(() => app.stderr(), { timeout: 60_000 }).toMatch(/worker \S+ online/);
  return app;
}

const childWith = (app: Launched, word: string) =>
  app.childPids().find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(word);
    } catch {
      return false;
    }
  });

/** Waits until a child with `word` in its command line runs again, with another pid; returns that pid. */
async function replaced(app: Launched, word: string, before: number | undefined): Promise<number> {
  let pid: number | undefined;
  await expect
    .poll(() => ((pid = childWith(app, word)) !== undefined && pid !== before ? pid : null), { timeout: 30_000 })
    .not.toBeNull();
  return pid ?? -1;
}

async function trpc<T>(app: Launched, procedure: string, body?: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${app.base}/api/trpc/${procedure}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { result?: { data: T } };
  return { status: response.status, data: json.result?.data as T };
}

async function health(app: Launched): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${app.base}/api/health`);
  return { status: response.status, body: (await response.json()) as HealthReport };
}

describe("supervision", () => {
  it("kill -9 the private Redis: restarted from its append-only file, logged and counted; queued data and the queue work on", async () => {
    const dataDir = tempDir("supervision");
    const app = await start(dataDir);
    const socket = path.join(dataDir, "redis", "redis.sock");
    const client = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on("error", () => undefined);
    await client.connect();
    await client.set("drill:marker", "kept");
    await new Promise((resolve) => setTimeout(resolve, 1500)); // appendfsync everysec
    client.disconnect();
    const first = childWith(app, "redis-server");
    signalProcess(first, "SIGKILL");
    await expect
      .poll(() => app.stderr(), { timeout: 15_000 })
      .toContain("Redis exited (signal 9); restarting from its append-only file");
    const second = await replaced(app, "redis-server", first);
    expect(isAlive(first ?? -1)).toBe(false);
    expect(second).not.toBe(first);
    const again = new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 1 });
    again.on("error", () => undefined);
    // its process exists a moment before it listens
    await expect
      .poll(() => again.get("drill:marker").catch(() => null), { timeout: 30_000, interval: 500 })
      .toBe("kept");
    again.disconnect();
    // the worker and the web side reconnect: a job round trip through the new Redis works
    await expect
      .poll(async () => (await trpc<unknown>(app, "system.selfcheck", {})).status, { timeout: 60_000, interval: 1000 })
      .toBe(200);
    const report = await health(app);
    expect(report.body.supervision.find((child) => child.name === "redis")).toMatchObject({
      state: "running",
      restarts: 1,
      lastExit: "signal 9",
    });
  });

  it("kill -9 the worker child: another is online again, the restart counted", async () => {
    const app = await start();
    const first = childWith(app, "worker");
    signalProcess(first, "SIGKILL");
    await expect.poll(() => app.stderr(), { timeout: 15_000 }).toContain("The worker exited (signal 9); restarting it");
    const second = await replaced(app, "worker", first);
    await expect
      .poll(async () => (await trpc<{ pid: number }[]>(app, "system.workers")).data.map((worker) => worker.pid), {
        timeout: 60_000,
        interval: 500,
      })
      .toEqual([second]);
    const report = await health(app);
    expect(report.body.supervision.find((child) => child.name === "worker")).toMatchObject({
      state: "running",
      restarts: 1,
    });
  });

  it("a worker that keeps dying: health degrades and says so, and the log says how to run one by hand", async () => {
    const dataDir = tempDir("supervision");
    const app = await start(dataDir);
    for (let kill = 0; kill < 3; kill++) {
      const pid = childWith(app, "worker");
      signalProcess(pid, "SIGKILL");
      await replaced(app, "worker", pid);
    }
    const report = await health(app);
    expect(report.status).toBe(503);
    expect(report.body.status).toBe("degraded");
    expect(report.body.problems.join("\n")).toMatch(/The worker keeps exiting \(signal 9\)/);
    expect(app.stderr()).toContain(
      `To run one yourself: invariant-web worker --data-dir ${dataDir} --redis-url unix://`,
    );
  });
});
