// Cold start of `invariant-web` to its first 200 responses, and idle memory (RSS) of web + worker.
// Baseline, measured in the same run: Next.js's own production server (`next start`) on the same build,
// which is the floor for any Next.js dashboard — our extra work is Redis, migrations, the worker, tRPC and socket.io.
import path from "node:path";
import {
  childrenOf,
  commandOf,
  freePort,
  median,
  ROOT,
  rssBytes,
  startProcess,
  tempDir,
  waitFor200,
  writeResult,
} from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.REDIS_URL;
delete env.DISPLAY;

async function startInvariant(dataDir) {
  const began = performance.now();
  const app = startProcess(
    process.execPath,
    [path.join(ROOT, "bin", "invariant-web.mjs"), "--data-dir", dataDir, "--port", "0", "--no-open"],
    { env },
  );
  while (!/is running at (\S+)/.test(app.stdout())) {
    if (app.child.exitCode !== null) throw new Error(`invariant-web exited: ${app.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const url = new URL(/is running at (\S+)/.exec(app.stdout())[1]);
  await waitFor200(`${url.origin}/projects`, {
    headers: { authorization: `Bearer ${url.searchParams.get("token")}` },
  });
  return { app, url, ms: performance.now() - began };
}

async function startNextBaseline() {
  const port = await freePort();
  const began = performance.now();
  const app = startProcess(
    process.execPath,
    [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    { env },
  );
  // the page behind our auth gate; Next alone serves it without one
  await waitFor200(`http://127.0.0.1:${port}/projects`);
  return { app, ms: performance.now() - began };
}

const ours = { fresh: [], warm: [] };
const baseline = [];
for (let run = 0; run < RUNS; run++) {
  const dataDir = tempDir("cold");
  const fresh = await startInvariant(dataDir); // empty data dir: migrations, token, Redis AOF created
  ours.fresh.push(fresh.ms);
  await fresh.app.stop();
  const warm = await startInvariant(dataDir); // up-to-date data dir
  ours.warm.push(warm.ms);
  await warm.app.stop();
  const next = await startNextBaseline();
  baseline.push(next.ms);
  await next.app.stop();
}

writeResult({
  name: "cold-start-first-200",
  unit: "ms",
  value: Math.round(median(ours.warm)),
  baseline: Math.round(median(baseline)),
  notes: `median of ${RUNS}: invariant-web (private Redis, migrations check, worker child, Next, tRPC, socket.io) from spawn to first authenticated 200 on /projects, existing data dir; fresh data dir median ${Math.round(median(ours.fresh))} ms; baseline is \`next start\` alone to its first 200. Target < 3000 ms.`,
});

// idle memory: start, let it settle, then sum RSS of the web process and its worker child
const dataDir = tempDir("idle");
const { app } = await startInvariant(dataDir);
await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const children = childrenOf(app.child.pid);
const worker = children.find((pid) => commandOf(pid).includes(" worker "));
const redis = children.find((pid) => commandOf(pid).includes("redis-server"));
const web = rssBytes(app.child.pid);
const workerRss = worker ? rssBytes(worker) : 0;
const redisRss = redis ? rssBytes(redis) : 0;
await app.stop();
const next = await startNextBaseline();
await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const nextRss = rssBytes(next.app.child.pid);
await next.app.stop();
const mib = (bytes) => Math.round(bytes / 1024 / 1024);
writeResult({
  name: "idle-rss-web-worker",
  unit: "MiB",
  value: mib(web + workerRss),
  baseline: mib(nextRss),
  notes: `RSS after ${IDLE_MS / 1000} s idle: web ${mib(web)} MiB + worker ${mib(workerRss)} MiB (private Redis ${mib(redisRss)} MiB, not counted); baseline is \`next start\` alone. Target < 400 MiB.`,
});
