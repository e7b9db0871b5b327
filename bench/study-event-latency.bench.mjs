// Event latency from a worker publishing an event to a browser's socket receiving it, through the real
// product: `invariant-web` (web process: recorder XREADGROUP → SQLite EventLog insert + domain apply →
// socket.io room emit) on a Redis of the bench's own. This process publishes `trial.log` events with the
// product's publishEvent (as the worker does) at a steady rate and receives them on a socket.io-client
// subscribed to the study's room, with the admin cookie; each event carries its send time.
// Baseline, in the same run and the same way: a bare pipeline in its own Node.js process — XADD →
// XREAD BLOCK → socket.io emit to the room, no validation, no SQLite — on the same Redis.
// Blocks of 100 events alternate between the two; latency = receive − send on this process's clock.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { io } from "socket.io-client";
import { median, ROOT, startProcess, writeResult } from "./lib.mjs";
import { percentile, productModules, round, startRedis, tempDir } from "./study-lib.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const BLOCK = 100;
const STUDY = "benchlatencystudy";
const TRIAL = "benchlatencytrial";
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const BASELINE_SERVER = `
import http from "node:http";
import { Redis } from "ioredis";
import { Server } from "socket.io";
const [socketPath, key] = process.argv.slice(2);
const server = http.createServer();
const ioServer = new Server(server, { serveClient: false, path: "/socket.io" });
ioServer.on("connection", (socket) => socket.on("subscribe", (payload) => void socket.join(payload.room)));
const redis = new Redis({ path: socketPath, maxRetriesPerRequest: null });
server.listen(0, "127.0.0.1", async () => {
  process.stdout.write("port " + server.address().port + "\\n");
  let last = "$";
  let id = 0;
  for (;;) {
    const reply = await redis.xread("COUNT", 200, "BLOCK", 2000, "STREAMS", key, last);
    for (const [, entries] of reply ?? []) {
      for (const [streamId, fields] of entries) {
        last = streamId;
        const event = JSON.parse(fields[1]);
        ioServer.to("study:" + event.studyId).emit("event", { id: ++id, event });
      }
    }
  }
});
`;

const m = await productModules();
const redis = await startRedis();
const dataDir = tempDir("latency-data");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete env.REDIS_URL;
delete env.DISPLAY;
const app = startProcess(
  process.execPath,
  [
    path.join(ROOT, "bin", "invariant-web.mjs"),
    "--data-dir",
    dataDir,
    "--port",
    "0",
    "--no-open",
    "--redis-url",
    redis.url,
  ],
  { env },
);
const baselineFile = path.join(ROOT, "node_modules", ".cache", "invariant-bench", "study-event-baseline.mjs");
fs.mkdirSync(path.dirname(baselineFile), { recursive: true });
fs.writeFileSync(baselineFile, BASELINE_SERVER);
const baselineKey = "bench:baseline-events";
const bare = startProcess(process.execPath, [baselineFile, redis.url.slice("unix://".length), baselineKey]);
const publisher = m.connectRedis({ url: redis.url, name: "bench-publisher" });

async function waitForOutput(proc, pattern, what) {
  const deadline = Date.now() + 90_000;
  while (!pattern.test(proc.stdout())) {
    if (proc.child.exitCode !== null) throw new Error(`${what} exited: ${proc.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${what} did not start in 90 s: ${proc.stderr().slice(-2000)}`);
    await sleep(10);
  }
  return pattern.exec(proc.stdout());
}

/** A socket.io client like the dashboard's (websocket first), subscribed to the study room; resolves once events arrive. */
async function subscriber(origin, token, publishProbe) {
  const socket = io(origin, {
    path: "/socket.io",
    transports: ["websocket"],
    extraHeaders: token ? { authorization: `Bearer ${token}` } : {},
    reconnection: false,
  });
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  const received = new Map();
  socket.on("event", (recorded) => {
    const at = now();
    const text = recorded?.event?.data?.text;
    const match = /^bench (\d+) (\S+) sent (\d+(?:\.\d+)?)$/.exec(text ?? "");
    if (match) received.set(`${match[2]}:${match[1]}`, at - Number(match[3]));
  });
  socket.emit("subscribe", { room: `study:${STUDY}` });
  // the join has no acknowledgement: publish probes until one comes back
  for (let i = 0; ; i++) {
    await publishProbe(i);
    await sleep(100);
    if ([...received.keys()].some((key) => key.startsWith("probe"))) break;
    if (i > 100) throw new Error(`no probe came back from ${origin}`);
  }
  return { socket, received };
}

const event = (label, i) => ({
  type: "trial.log",
  projectId: "benchlatencyproject",
  studyId: STUDY,
  trialId: TRIAL,
  workerId: "bench-worker",
  data: { attempt: 1, text: `bench ${i} ${label} sent ${now().toFixed(3)}` },
});
const publishOurs = (label, i) => m.publishEvent(publisher, event(label, i));
// the bare path publishes the same JSON (with v and at) without the catalog's validation
const publishBare = (label, i) =>
  publisher.xadd(baselineKey, "*", "event", JSON.stringify({ ...event(label, i), v: 1, at: new Date().toISOString() }));

/** Publishes `count` events at RATE per second on a fixed schedule (no drift from slow sends). */
async function publishBlock(publish, label, from, count) {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await publish(label, from + i);
  }
}

let exitCode = 0;
try {
  const [, url] = await waitForOutput(app, /is running at (\S+)/, "invariant-web");
  const parsed = new URL(url);
  const [, port] = await waitForOutput(bare, /port (\d+)/, "the bare pipeline");
  const ours = await subscriber(parsed.origin, parsed.searchParams.get("token"), (i) => publishOurs("probe", i));
  const baseline = await subscriber(`http://127.0.0.1:${port}`, null, (i) => publishBare("probe", i));
  // warm-up: 50 events each, not counted
  await publishBlock(publishOurs, "warm", 0, 50);
  await publishBlock(publishBare, "warm", 0, 50);
  await sleep(500);
  for (let from = 0; from < EVENTS; from += BLOCK) {
    const count = Math.min(BLOCK, EVENTS - from);
    await publishBlock(publishOurs, "ours", from, count);
    await publishBlock(publishBare, "bare", from, count);
  }
  const deadline = Date.now() + 10_000;
  const got = (set, label) =>
    [...set.received.entries()].filter(([key]) => key.startsWith(`${label}:`)).map(([, latency]) => latency);
  while ((got(ours, "ours").length < EVENTS || got(baseline, "bare").length < EVENTS) && Date.now() < deadline)
    await sleep(50);
  const oursMs = got(ours, "ours");
  const bareMs = got(baseline, "bare");
  ours.socket.close();
  baseline.socket.close();
  const stats = (list) => ({
    p50: round(median(list), 1),
    p95: round(percentile(list, 95), 1),
    p99: round(percentile(list, 99), 1),
    max: round(Math.max(...list), 1),
  });
  const o = stats(oursMs);
  const b = stats(bareMs);
  // where ours spends it: publish → the EventLog row written (XADD, XREADGROUP, parse and validate, the
  // existence check; createdAt is stamped by Prisma just before the insert) vs the row → the browser
  const sqlite = new Database(path.join(dataDir, "invariant.db"), { readonly: true, fileMustExist: true });
  const rows = sqlite
    .prepare("SELECT payload, createdAt FROM EventLog WHERE studyId = ? AND type = 'trial.log'")
    .all(STUDY);
  sqlite.close();
  const toRow = [];
  for (const row of rows) {
    const match = /bench (\d+) ours sent (\d+(?:\.\d+)?)/.exec(JSON.parse(row.payload).data.text);
    if (!match) continue;
    const created = typeof row.createdAt === "number" ? row.createdAt : Date.parse(row.createdAt);
    toRow.push({ toRow: created - Number(match[2]), total: ours.received.get(`ours:${match[1]}`) });
  }
  const recorded = {
    p50: round(median(toRow.map((r) => r.toRow)), 1),
    p95: round(
      percentile(
        toRow.map((r) => r.toRow),
        95,
      ),
      1,
    ),
  };
  const afterRow = {
    p50: round(median(toRow.map((r) => r.total - r.toRow)), 1),
    p95: round(
      percentile(
        toRow.map((r) => r.total - r.toRow),
        95,
      ),
      1,
    ),
  };
  console.log(
    `ours, publish → EventLog row stamped: p50 ${recorded.p50} p95 ${recorded.p95} ms; row → received: p50 ${afterRow.p50} p95 ${afterRow.p95} ms (${toRow.length} rows)`,
  );
  console.log(`ours: ${oursMs.length}/${EVENTS} received, p50 ${o.p50} p95 ${o.p95} p99 ${o.p99} max ${o.max} ms`);
  console.log(
    `bare XADD → XREAD → socket.io: ${bareMs.length}/${EVENTS} received, p50 ${b.p50} p95 ${b.p95} p99 ${b.p99} max ${b.max} ms`,
  );
  writeResult({
    name: "study-event-latency-p95",
    unit: "ms",
    value: o.p95,
    baseline: b.p95,
    notes:
      `${EVENTS} trial.log events at ${RATE}/s, publishEvent → invariant-web (recorder, SQLite EventLog, study room) → socket.io-client with the admin cookie: p50 ${o.p50}, p95 ${o.p95}, p99 ${o.p99}, max ${o.max} ms (${oursMs.length}/${EVENTS} received); of which publish → EventLog row stamped p50 ${recorded.p50} / p95 ${recorded.p95} ms, row → received p50 ${afterRow.p50} / p95 ${afterRow.p95} ms. ` +
      `Baseline, a bare XADD → XREAD BLOCK → socket.io emit process on the same Redis, alternating blocks of ${BLOCK}: p50 ${b.p50}, p95 ${b.p95}, p99 ${b.p99}, max ${b.max} ms. ` +
      `Target p95 < 100 ms: ${o.p95 < 100 ? "met" : "missed"}. Load average at the end ${os.loadavg()[0].toFixed(1)}.`,
  });
  if (oursMs.length < EVENTS || bareMs.length < EVENTS) throw new Error("events went missing");
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  publisher.disconnect();
  await app.stop();
  await bare.stop();
  await redis.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
