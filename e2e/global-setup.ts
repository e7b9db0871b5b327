import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { FullConfig } from "@playwright/test";
import { STATE_ENV, type E2eState } from "./e2e-state";
import { childPids, commandLine, isRunning } from "./processes";

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const URL_LINE = /^invariant-web (\S+) is running at ((http:\/\/[^/\s]+)\/\?token=(\S+))$/;

/** A small project tree, like one a new user would point invariant-web at. */
function createProjectTree(root: string): string {
  const projectDir = path.join(root, "demo-app");
  mkdirSync(path.join(projectDir, "src"), { recursive: true });
  mkdirSync(path.join(projectDir, "test"), { recursive: true });
  writeFileSync(
    path.join(projectDir, "package.json"),
    `${JSON.stringify({ name: "demo-app", version: "1.0.0", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(projectDir, "README.md"),
    "# demo-app\n\nA tiny project for the invariant-web end-to-end tests.\n",
  );
  writeFileSync(path.join(projectDir, "src", "sum.js"), "export const sum = (a, b) => a + b;\n");
  writeFileSync(
    path.join(projectDir, "test", "sum.test.js"),
    'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "../src/sum.js";\ntest("sum", () => assert.equal(sum(2, 3), 5));\n',
  );
  return projectDir;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function waitUntilGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = pids.filter(isRunning);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = left.filter(isRunning);
  }
  return left;
}

/**
 * Starts the real product exactly as a user would (`invariant-web --data-dir … --port 0 --no-open`) with a
 * fresh temporary data dir, waits for its one stdout line, and hands URL, token and paths to the tests.
 * The returned teardown stops it with SIGTERM and checks that nothing it started is left running.
 */
export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const repoRoot = config.configFile ? path.dirname(config.configFile) : process.cwd();
  const runDir = mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-run-"));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-data-"));
  const projectsRoot = mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-projects-"));
  const projectDir = createProjectTree(projectsRoot);
  const calendarDir = path.join(projectsRoot, "calendar");
  cpSync(path.join(repoRoot, "fixtures", "calendar-project"), calendarDir, { recursive: true });
  // the one stand-in: a scripted local model (our own mock Responses API), so real Codex runs offline
  const mock = spawn(process.execPath, [path.join(repoRoot, "bin", "invariant-web.mjs"), "mock-model"], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const mockUrl = await new Promise<string>((resolve, reject) => {
    const mockLines = createInterface({ input: mock.stdout });
    mockLines.once("line", (line) => resolve(line.trim()));
    mock.once("exit", (code) => reject(new Error(`the mock model exited (${String(code)}) before printing its URL`)));
  });
  const removeTempDirs = () => {
    if (process.env.INVARIANT_E2E_KEEP) return;
    for (const dir of [runDir, dataDir, projectsRoot]) rmSync(dir, { recursive: true, force: true });
  };

  // The product must find (start) its own private Redis and use only this data dir.
  const env = { ...process.env };
  delete env.REDIS_URL;
  delete env.INVARIANT_DATA_DIR;
  env.OPENAI_API_KEY = "sk-e2e-FAKE-KEY";
  env.OPENAI_BASE_URL = mockUrl;
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "bin", "invariant-web.mjs"), "--data-dir", dataDir, "--port", "0", "--no-open"],
    {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );

  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const stdoutLines: string[] = [];
  const lines = createInterface({ input: child.stdout });

  const printed = await new Promise<RegExpExecArray>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        new Error(
          `invariant-web did not start: ${why}\n--- stdout ---\n${stdoutLines.join("\n")}\n--- stderr ---\n${stderr}`,
        ),
      );
    };
    const timer = setTimeout(() => fail(`no URL line within ${STARTUP_TIMEOUT_MS / 1000} s`), STARTUP_TIMEOUT_MS);
    lines.on("line", (line) => {
      stdoutLines.push(line);
      const match = URL_LINE.exec(line);
      // Other lines are recorded, not fatal: e2e/launch.spec.ts asserts the URL line is the only one.
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once("error", (error) => fail(`could not spawn it: ${error.message}`));
    child.once("exit", (code, signal) =>
      fail(`it exited (${signal ?? `code ${String(code)}`}) before printing its URL`),
    );
  }).catch(async (error: unknown) => {
    child.kill("SIGTERM");
    mock.kill("SIGTERM");
    await waitForExit(child, STOP_TIMEOUT_MS);
    removeTempDirs();
    throw error;
  });

  const state: E2eState = {
    printedLine: printed[0],
    printedUrl: printed[2]!,
    origin: printed[3]!,
    adminToken: printed[4]!,
    stdoutUntilUrl: [...stdoutLines],
    launcherPid: child.pid!,
    dataDir,
    projectDir,
    missingDir: path.join(projectsRoot, "no-such-project"),
    calendarDir,
  };
  const stateFile = path.join(runDir, "state.json");
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  process.env[STATE_ENV] = stateFile;

  return async function globalTeardown() {
    // environment images the run built are removed afterwards, so repeated runs do not fill the disk
    const projects = await fetch(`${state.origin}/api/trpc/projects.list`, {
      headers: { authorization: `Bearer ${state.adminToken}` },
    })
      .then(async (response) =>
        ((await response.json()) as { result: { data: { id: string }[] } }).result.data.map((p) => p.id),
      )
      .catch(() => [] as string[]);
    const started = childPids(child.pid!).map((pid) => ({ pid, command: commandLine(pid) }));
    child.kill("SIGTERM");
    const exited = await waitForExit(child, STOP_TIMEOUT_MS);
    const problems: string[] = [];
    if (!exited) {
      child.kill("SIGKILL");
      problems.push(`invariant-web did not exit within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`);
    } else if (child.exitCode !== 0) {
      problems.push(`invariant-web exited with ${child.signalCode ?? `code ${String(child.exitCode)}`} after SIGTERM`);
    }
    const leftOver = await waitUntilGone(
      started.map((p) => p.pid),
      10_000,
    );
    for (const pid of leftOver) {
      problems.push(
        `child process ${pid} (${started.find((p) => p.pid === pid)?.command ?? "?"}) is still running after invariant-web exited`,
      );
      process.kill(pid, "SIGKILL");
    }
    const later = stdoutLines.slice(state.stdoutUntilUrl.length);
    if (later.length > 0)
      problems.push(
        `invariant-web printed more stdout after its URL line (stdout is for that one line; logs go to stderr):\n${later.join("\n")}`,
      );
    for (const projectId of projects) {
      const images = spawnSync("docker", ["images", "-q", "--filter", `label=invariant.project=${projectId}`], {
        encoding: "utf8",
      })
        .stdout.split("\n")
        .filter(Boolean);
      if (images.length > 0) spawnSync("docker", ["rmi", "-f", ...new Set(images)], { stdio: "ignore" });
    }
    mock.kill("SIGTERM");
    await waitForExit(mock, STOP_TIMEOUT_MS);
    removeTempDirs();
    if (problems.length > 0) throw new Error(`${problems.join("\n")}\n--- stderr ---\n${stderr}`);
  };
}
