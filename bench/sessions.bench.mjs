// Terminal sessions in Debian Chromium against the real product (issue 12). `invariant-web` is launched on a
// data dir with one project (a small folder holding a 10 MB text file) whose environment is the base image.
// Each round, interleaved with its baselines:
//  1. start: click "Start session" (a shell, direct) → the first prompt rendered by xterm.js on the session
//     page; baseline: `docker run -it --rm IMAGE bash` in a pseudo-terminal → bash's first prompt byte;
//  2. keystroke echo: a key pressed in the page → its echo rendered (browser → socket.io → container TTY →
//     back); baseline: the same through `docker exec -it CONTAINER bash` in a pseudo-terminal;
//  3. `cat` of the 10 MB file in the terminal: Enter → the end marker rendered; baselines: `docker exec cat`
//     to a pipe (no terminal) and `docker exec -t cat` read by a terminal emulator (xterm.js headless).
// The first round is a warm-up. Times in the page are taken on the page's clock (click/keydown listeners and
// a MutationObserver on the terminal's rows), times of the baselines on this process's clock.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { launchApp, launchChromium } from "./browser-lib.mjs";
import { median, ROOT, writeResult } from "./lib.mjs";
import {
  bigText,
  dockerExecCat,
  dockerExecCatInTerminal,
  dockerExecEcho,
  dockerRunToPrompt,
  installProbe,
  lastFrameBetween,
  recordSocketFrames,
  ttyBytesOf,
  xtermFloor,
} from "./sessions-lib.mjs";
import { round, tempDir } from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ECHOES = Number(process.env.BENCH_ECHOES ?? 40);
const IMAGE = process.env.BENCH_IMAGE ?? "invariant-base:bookworm";
const CAT_BYTES = 10_000_000;
const m = await importBundle({
  name: "sessions-modules",
  exports: ['export { openWebDatabase } from "./src/server/web/wiring/web-core.ts";'],
});

async function seed(dataDir) {
  const projectDir = path.join(tempDir("sessions-project"), "project");
  fs.mkdirSync(projectDir, { recursive: true });
  fs.writeFileSync(path.join(projectDir, "README.md"), "A project for the session benchmark.\n");
  fs.writeFileSync(path.join(projectDir, "big.txt"), bigText(CAT_BYTES));
  const imageId = execFileSync("docker", ["image", "inspect", "--format", "{{.Id}}", IMAGE], {
    encoding: "utf8",
  }).trim();
  const db = await m.openWebDatabase({ root: ROOT, dataDir });
  const project = await db.project.create({ data: { name: "sessions", hostPath: projectDir } });
  await db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: IMAGE,
      imageId,
      origin: "base",
      status: "ready",
      active: true,
    },
  });
  await db.$disconnect();
  return { projectDir };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** Arms the page's probe, does `action`, and returns the probe's moment minus the click or keydown before it. */
async function timed(page, options, action) {
  return (await timedWithFrames(page, options, action)).ms;
}

/** As `timed`, with when the last socket frame before that moment arrived (ms after the click or keydown). */
async function timedWithFrames(page, { kind, text = null, from }, action) {
  await page.evaluate(([k, t]) => globalThis.__probe.arm(k, t), [kind, text]);
  await action();
  const at = await page.evaluate(() => globalThis.__probe.done);
  const began = await page.evaluate((key) => globalThis.__probe[key], from);
  return { ms: at - began, frame: await page.evaluate(lastFrameBetween, [began, at]) };
}

/** In the page (BENCH_DEBUG): what was fetched when, in ms after the click (compare `docker events` with clickWall). */
function startTimeline() {
  const from = globalThis.__probe.clickAt;
  const at = (t) => Math.round(t - from);
  const fetched = performance
    .getEntriesByType("resource")
    .filter((entry) => entry.startTime > from)
    .map(
      (entry) =>
        `${entry.name.replace(/^https?:\/\/[^/]+/, "").slice(0, 60)} ${at(entry.startTime)}→${at(entry.responseEnd)}`,
    );
  return { clickWall: Math.round(performance.timeOrigin + from), fetched };
}

async function startInBrowser(page, origin) {
  await page.goto(`${origin}/sessions`);
  await page.evaluate(installProbe);
  await page.getByLabel("A shell").check();
  await page.getByLabel(/^Direct/).check();
  const ms = await timed(page, { kind: "prompt", from: "clickAt" }, () =>
    page.getByRole("button", { name: "Start session" }).click(),
  );
  const sessionId = /\/sessions\/([^/?#]+)/.exec(page.url())[1];
  if (process.env.BENCH_DEBUG) console.log(JSON.stringify(await page.evaluate(startTimeline)));
  return { ms, sessionId };
}

async function echoInBrowser(page) {
  await page.getByTestId("terminal").click();
  const times = [];
  const frames = [];
  let typed = "";
  for (let i = 0; i < ECHOES; i++) {
    if (typed.length >= 40) {
      await page.keyboard.press("Control+U");
      typed = "";
      await page.waitForTimeout(50);
    }
    const char = String.fromCharCode(97 + (i % 26));
    typed += char;
    const echo = await timedWithFrames(page, { kind: "endsWith", text: typed, from: "keyAt" }, () =>
      page.keyboard.press(char),
    );
    times.push(echo.ms);
    if (echo.frame !== null) frames.push(echo.frame);
  }
  await page.keyboard.press("Control+U");
  return { times, frames };
}

async function catInBrowser(page, marker) {
  await page.keyboard.type(`cat big.txt; echo ${marker.replace("-", '""-')}`);
  return timedWithFrames(page, { kind: "includes", text: marker, from: "keyAt" }, () => page.keyboard.press("Enter"));
}

function sessionContainer(sessionId) {
  return execFileSync("docker", ["ps", "-q", "--filter", `label=invariant.session=${sessionId}`], {
    encoding: "utf8",
  }).trim();
}

async function finishSession(origin, token, sessionId) {
  const response = await fetch(`${origin}/api/trpc/sessions.finish`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ sessionId }),
  });
  if (!response.ok) throw new Error(`sessions.finish answered ${response.status}: ${await response.text()}`);
}

let ttyBytes = null;

async function oneRound(page, url, index, floor) {
  const result = {};
  // alternate which side goes first
  if (index % 2) result.dockerRun = await dockerRunToPrompt(IMAGE);
  const started = await startInBrowser(page, url.origin);
  result.start = started.ms;
  if (!(index % 2)) result.dockerRun = await dockerRunToPrompt(IMAGE);
  const containerId = sessionContainer(started.sessionId);
  const echo = await echoInBrowser(page);
  result.echo = echo.times;
  result.echoFrames = echo.frames;
  result.echoExec = await dockerExecEcho(containerId, ECHOES);
  result.echoFloor = await floor.echo(ECHOES);
  await page.getByTestId("terminal").click(); // the session page's terminal has the keyboard again
  const file = "/workspace/big.txt";
  if (index % 2) result.catPipe = (await dockerExecCat(containerId, file)).ms;
  const cat = await catInBrowser(page, `END-${index}`);
  result.cat = cat.ms;
  result.catLastFrame = cat.frame;
  result.catTerminal = (await dockerExecCatInTerminal(containerId, file)).ms;
  ttyBytes ??= await ttyBytesOf(containerId, file);
  result.catFloor = await floor.feed(ttyBytes, `FLOOR-${index}`);
  if (!(index % 2)) result.catPipe = (await dockerExecCat(containerId, file)).ms;
  await finishSession(url.origin, url.searchParams.get("token"), started.sessionId);
  return result;
}

function report(rounds) {
  const list = (key) => rounds.map((r) => round(r[key])).join(" ");
  const ratios = (key, base) => rounds.map((r) => r[key] / r[base]);
  const ratioList = (key, base) =>
    ratios(key, base)
      .map((x) => x.toFixed(2))
      .join(" ");
  const medianRatio = (key, base) => median(ratios(key, base)).toFixed(2);
  const med = (key) => round(median(rounds.map((r) => r[key])));
  const echo = rounds.flatMap((r) => r.echo);
  const echoExec = rounds.flatMap((r) => r.echoExec);
  const frames = rounds.flatMap((r) => r.echoFrames);
  const echoFloor = rounds.flatMap((r) => r.echoFloor);
  const load = `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} at the end`;
  console.log(`start (ms): ${list("start")}; docker run -it: ${list("dockerRun")}`);
  console.log(
    `cat 10 MB (ms): ${list("cat")}; docker exec -t + xterm headless: ${list("catTerminal")}; docker exec cat | pipe: ${list("catPipe")}; xterm.js alone in Chromium: ${list("catFloor")}`,
  );
  writeResult({
    name: "session-start-to-prompt",
    unit: "ms",
    value: med("start"),
    baseline: med("dockerRun"),
    rounds: rounds.map((r) => [round(r.start), round(r.dockerRun)]),
    notes: `click "Start session" (shell, direct) → first prompt rendered by xterm.js, median of ${rounds.length} rounds (${list("start")}); baseline \`docker run -it --rm ${IMAGE} bash\` in a pty → first prompt byte (${list("dockerRun")}). Ratio per round ${ratioList("start", "dockerRun")} (median ${medianRatio("start", "dockerRun")}×). Targets < 1000 ms and ≤ 1.3×. ${load}.`,
  });
  writeResult({
    name: "session-echo-p95",
    unit: "ms",
    value: round(percentile(echo, 95)),
    baseline: round(percentile(echoExec, 95)),
    notes: `keydown in the page → the echoed character rendered, p95 of ${echo.length} keystrokes over ${rounds.length} rounds (p50 ${round(percentile(echo, 50))}, p99 ${round(percentile(echo, 99))}); of that, keydown → the echo's last socket frame arrived: p50 ${round(percentile(frames, 50))}, p95 ${round(percentile(frames, 95))} (the rest is xterm.js drawing it at the next animation frame); baseline: the same through \`docker exec -it bash\` in a pty read by this process, p95 (p50 ${round(percentile(echoExec, 50))}). The floor for a browser terminal here, xterm.js alone in a blank Chromium page whose keystrokes a local WebSocket echoes at once: p50 ${round(percentile(echoFloor, 50))}, p95 ${round(percentile(echoFloor, 95))}, p99 ${round(percentile(echoFloor, 99))}; ours ÷ floor at p95 ${(percentile(echo, 95) / percentile(echoFloor, 95)).toFixed(2)}×. Target p95 < 30 ms. ${load}.`,
  });
  writeResult({
    name: "session-cat-10mb",
    unit: "ms",
    value: med("cat"),
    baseline: med("catTerminal"),
    rounds: rounds.map((r) => [round(r.cat), round(r.catTerminal), round(r.catPipe)]),
    notes: `\`cat\` of a 10 MB text file in the browser terminal: Enter → the end marker rendered, median of ${rounds.length} (${list("cat")}); baseline \`docker exec -t cat\` read by a terminal emulator (xterm.js headless) (${list("catTerminal")}); \`docker exec cat\` to a pipe, no terminal: median ${med("catPipe")} ms (${list("catPipe")}), ratio ${(med("cat") / med("catPipe")).toFixed(2)}×. Ratio per round to the emulator baseline ${ratioList("cat", "catTerminal")} (median ${medianRatio("cat", "catTerminal")}×). The floor for a browser terminal here, xterm.js alone in a blank Chromium page fed the same bytes over a local WebSocket: median ${med("catFloor")} ms (${list("catFloor")}); ours ÷ that floor per round ${ratioList("cat", "catFloor")} (median ${medianRatio("cat", "catFloor")}×); Enter → the last socket frame arrived: ${list("catLastFrame")}. Target ≤ 1.5×. ${load}.`,
  });
}

const dataDir = tempDir("sessions-data");
const seeded = await seed(dataDir);
let app = null;
let browser = null;
let page = null;
let floor = null;
let exitCode = 0;
try {
  const launched = await launchApp(dataDir);
  app = launched.app;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.addInitScript(recordSocketFrames);
  floor = await xtermFloor({ browser, viewport: { width: 1440, height: 900 } });
  await page.goto(launched.url.href); // sets the access cookie
  const rounds = [];
  for (let i = 0; i <= RUNS; i++) {
    const result = await oneRound(page, launched.url, i, floor);
    if (process.env.BENCH_DEBUG)
      console.log(
        JSON.stringify({
          ...result,
          echo: undefined,
          echoExec: undefined,
          echoFrames: undefined,
          echoFloor: undefined,
        }),
      );
    if (i > 0) rounds.push(result); // the first is a warm-up
  }
  report(rounds);
} catch (error) {
  console.error(error);
  const shown = await page?.evaluate(() => globalThis.document.body.innerText.slice(0, 2000)).catch(() => null);
  if (shown) console.error(`The page at ${page.url()} showed:\n${shown}`);
  exitCode = 1;
} finally {
  await floor?.close();
  await browser?.close();
  await app?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(path.dirname(seeded.projectDir), { recursive: true, force: true });
}
process.exit(exitCode);
