// Helpers of bench/big-study.bench.mjs: the product's tRPC and downloads over HTTP, a frame-interval
// sampler in the page, RSS sampling of a process, and the replay of a real study's recorded events as
// 200 live trials of another study.
import fs from "node:fs";
import { median, rssBytes } from "./lib.mjs";
import { percentile, round } from "./study-lib.mjs";

export const mib = (bytes) => round(bytes / 1024 ** 2, 1);

/** tRPC over HTTP with the admin token (no transformer: plain JSON). */
export function trpcClient(origin, token) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const unwrap = async (response, name) => {
    const body = await response.json();
    if (!response.ok) throw new Error(`${name}: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
    return body.result.data;
  };
  return {
    query: async (name, input) =>
      unwrap(
        await fetch(`${origin}/api/trpc/${name}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers }),
        name,
      ),
    mutate: async (name, input) =>
      unwrap(await fetch(`${origin}/api/trpc/${name}`, { method: "POST", headers, body: JSON.stringify(input) }), name),
    /** A download (a report): its time to the last byte and its size. */
    async download(pathname) {
      const began = performance.now();
      const response = await fetch(`${origin}${pathname}`, { headers });
      const bytes = (await response.arrayBuffer()).byteLength;
      if (!response.ok) throw new Error(`${pathname}: ${response.status}`);
      return { ms: performance.now() - began, bytes };
    },
  };
}

/** Samples a process's RSS every `everyMs` until stopped; returns the samples (bytes). */
export function sampleRss(pid, everyMs = 500) {
  const samples = [];
  const timer = setInterval(() => {
    try {
      samples.push(rssBytes(pid));
    } catch {
      clearInterval(timer); // the process is gone
    }
  }, everyMs);
  samples.push(rssBytes(pid));
  return {
    samples,
    stop() {
      clearInterval(timer);
      samples.push(rssBytes(pid));
      return samples;
    },
  };
}

/** Starts recording requestAnimationFrame intervals in the page (the time between two frames it drew). */
export async function startFrames(page) {
  await page.evaluate(() => {
    const state = { intervals: [], stop: false };
    globalThis.__frameSampler = state;
    let last = 0;
    const loop = (now) => {
      if (last) state.intervals.push(now - last);
      last = now;
      if (!state.stop) globalThis.requestAnimationFrame(loop);
    };
    globalThis.requestAnimationFrame(loop);
  });
}

/** Stops the sampler; returns the intervals (ms). */
export async function stopFrames(page) {
  return page.evaluate(() => {
    const state = globalThis.__frameSampler;
    state.stop = true;
    return state.intervals;
  });
}

export function frameStats(intervals) {
  return {
    frames: intervals.length,
    p50: round(percentile(intervals, 50), 1),
    p95: round(percentile(intervals, 95), 1),
    p99: round(percentile(intervals, 99), 1),
    max: round(Math.max(...intervals), 1),
    over50: intervals.filter((ms) => ms > 50).length,
  };
}

export function rssStats(samples) {
  return { median: mib(median(samples)), peak: mib(Math.max(...samples)) };
}

/**
 * The events of each trial of a recorded study, in order, with their offsets from the trial's first event
 * (ms). Artefact events are left out: the replayed trials made no workspace or image of their own.
 */
export async function recordedTrials(db, studyId) {
  const rows = await db.eventLog.findMany({ where: { studyId }, orderBy: { id: "asc" } });
  const byTrial = new Map();
  for (const row of rows) {
    if (!row.trialId) continue;
    const event = JSON.parse(row.payload);
    if (event.type === "trial.artefacts") continue;
    const list = byTrial.get(row.trialId) ?? [];
    list.push(event);
    byTrial.set(row.trialId, list);
  }
  return [...byTrial.entries()].map(([trialId, events]) => {
    const first = Date.parse(events[0].at);
    return { trialId, events: events.map((event) => ({ offsetMs: Date.parse(event.at) - first, event })) };
  });
}

/** Every recorded event of `source`, as the same event of `target` (ids rewritten), for publishEvent. */
function remap(event, source, target, workerId) {
  const json = JSON.stringify(event)
    .replaceAll(source.trialId, target.trialId)
    .replaceAll(source.studyId, target.studyId);
  const { v: _v, at: _at, ...input } = JSON.parse(json);
  return { ...input, workerId };
}

/**
 * Publishes, for each target trial, the events of a recorded trial (cycled) at their recorded pace; target k
 * starts `k * staggerMs / targets` after the first, so all of them are live at once. Resolves once every
 * event is published; returns how many and the publishing lag behind the schedule (p95, ms).
 */
export async function replay({ m, redis, recorded, sourceStudyId, targetStudyId, targets, workerId, staggerMs }) {
  const schedule = [];
  targets.forEach((trialId, k) => {
    const source = recorded[k % recorded.length];
    const start = (k * staggerMs) / targets.length;
    for (const { offsetMs, event } of source.events)
      schedule.push({
        at: start + offsetMs,
        input: remap(
          event,
          { trialId: source.trialId, studyId: sourceStudyId },
          { trialId, studyId: targetStudyId },
          workerId,
        ),
      });
  });
  schedule.sort((a, b) => a.at - b.at);
  const began = performance.now();
  const lags = [];
  const pending = [];
  for (const item of schedule) {
    const wait = item.at - (performance.now() - began);
    if (wait > 2) await new Promise((resolve) => setTimeout(resolve, wait));
    lags.push(performance.now() - began - item.at);
    pending.push(m.publishEvent(redis, item.input));
  }
  await Promise.all(pending);
  return {
    events: schedule.length,
    spanMs: schedule.length ? schedule[schedule.length - 1].at : 0,
    lagP95: round(percentile(lags, 95)),
  };
}

/** A seeded copy of a finished study: same project, snapshot, image and tests; `configurations` × `repeats` trials, all queued, running. */
export async function seedRunningCopy(db, { studyId, configurations, repeats, title }) {
  const source = await db.study.findUnique({ where: { id: studyId } });
  const { id: _id, createdAt: _c, startedAt: _s, finishedAt: _f, updatedAt: _u, ...fields } = source;
  const now = new Date();
  const copy = await db.study.create({
    data: {
      ...fields,
      title,
      state: "running",
      concurrency: configurations * repeats,
      startedAt: now,
      configurations: {
        create: Array.from({ length: configurations }, (_, index) => ({
          position: index + 1,
          model: `one-step-${index + 1}`,
          reasoningEffort: "low",
          repeats,
        })),
      },
    },
    include: { configurations: { orderBy: { position: "asc" } } },
  });
  await db.trial.createMany({
    data: copy.configurations.flatMap((configuration) =>
      Array.from({ length: repeats }, (_, index) => ({
        studyId: copy.id,
        configurationId: configuration.id,
        queuedAt: new Date(now.getTime() + configuration.position * 100 + index),
      })),
    ),
  });
  const trials = await db.trial.findMany({
    where: { studyId: copy.id },
    orderBy: [{ queuedAt: "asc" }],
    select: { id: true },
  });
  return { studyId: copy.id, trialIds: trials.map((trial) => trial.id) };
}

export function removeDirs(...dirs) {
  for (const dir of dirs) if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
