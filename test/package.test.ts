import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliFailureSchema, cliResultSchema } from "../src/cli/cli-schemas";
import { packageVersion } from "../src/lib/package-info";
import { cleanEnv, isAlive } from "./support/launch";
import { REPO_ROOT, tempDir } from "./support/temp";

/**
 * Issue 13 point 4: `npm pack` gives a package that works. The tarball is packed from this checkout
 * (its prepack step builds, and reuses a build that is up to date), installed into an empty directory
 * with `npm install` (the local npm cache first) without running any dependency's install script, and
 * `npx invariant-web` started from there serves a healthy dashboard.
 */
const version = packageVersion(REPO_ROOT);
let installDir: string | null = null;
let launcherPid: number | null = null;

afterAll(() => {
  if (launcherPid !== null && isAlive(launcherPid)) process.kill(-launcherPid, "SIGKILL");
  // about a gigabyte of dependencies: not left for the run's teardown
  if (installDir) fs.rmSync(installDir, { recursive: true, force: true });
});

/** npm's own variables from an enclosing `npm test` would change how the inner npm commands behave. */
function npmEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv();
  for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key];
  return { ...env, NEXT_TELEMETRY_DISABLED: "1" };
}

function npm(args: string[], cwd: string, timeoutMs: number): SpawnSyncReturns<string> {
  const result = spawnSync("npm", args, { cwd, env: npmEnv(), encoding: "utf8", timeout: timeoutMs });
  if (result.status !== 0)
    throw new Error(`npm ${args.join(" ")} exited ${result.status}:\n${result.stderr.slice(-3000)}`);
  return result;
}

/** Live processes of a process group (zombies excluded). */
function processGroup(pgid: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("the npm package", () => {
  let tarball = "";

  it("packs what the launcher needs and nothing else", () => {
    const out = tempDir("pack");
    npm(["pack", "--pack-destination", out, "--loglevel=warn"], REPO_ROOT, 900_000);
    tarball = path.join(out, `invariant-web-${version}.tgz`);
    expect(fs.existsSync(tarball)).toBe(true);
    const files = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, ""));
    for (const needed of [
      "package.json",
      "bin/invariant-web.mjs",
      "dist/cli.mjs",
      ".next/BUILD_ID",
      "next.config.ts",
      "mock-scripts/calendar-fix-all.json",
      "assets/gateway-bridge.cjs",
      "assets/heartbeat-thread.mjs",
      "scripts/base-image.mjs",
      `dist/native/better_sqlite3-${process.platform}-${process.arch}-abi${process.versions.modules}.node`,
    ])
      expect(files, needed).toContain(needed);
    expect(files.some((file) => file.startsWith("prisma/migrations/") && file.endsWith("/migration.sql"))).toBe(true);
    const unwanted = files.filter((file) =>
      file.startsWith("fixtures/")
        ? !file.startsWith("fixtures/calendar-project/") // the demo's project, tests and all, and no other fixture
        : /(^|\/)(src|test|e2e|bench|worker|node_modules)\//.test(file) ||
          /\.test\.[cm]?[jt]sx?$/.test(file) ||
          file.endsWith(".map") ||
          file.startsWith(".next/cache/") ||
          file.startsWith("docs/"),
    );
    expect(unwanted).toEqual([]);
  }, 900_000);

  it("installs into an empty directory with no install script run, and npx invariant-web --version prints the version", () => {
    installDir = tempDir("npx-install");
    // --ignore-scripts: no dependency's install script runs, the strictest answer to npm's install-script
    // policy (and nothing is compiled, nor fetched from outside the registry by a prebuilt-binary download)
    npm(
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", tarball],
      installDir,
      900_000,
    );
    const result = spawnSync("npx", ["invariant-web", "--version"], {
      cwd: installDir,
      env: npmEnv(),
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.status).toBe(0);
    // the dependencies' install scripts did not run: better-sqlite3 has no build of its own here
    const sqlite = path.join(installDir, "node_modules", "better-sqlite3");
    expect(fs.existsSync(path.join(sqlite, "package.json"))).toBe(true);
    expect(fs.existsSync(path.join(sqlite, "build", "Release", "better_sqlite3.node"))).toBe(false);
  }, 900_000);

  it("starts a healthy dashboard with npx invariant-web and stops cleanly", async () => {
    if (!installDir) throw new Error("the install step did not run");
    const dataDir = tempDir("npx-data");
    const child = spawn("npx", ["invariant-web", "--port", "0", "--no-open", "--data-dir", dataDir], {
      cwd: installDir,
      env: npmEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: npx, the launcher, its worker and Redis are stopped together
    });
    launcherPid = child.pid ?? null;
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 120 s. stderr:\n${stderr}`)), 120_000);
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /is running at (\S+)/.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`npx invariant-web exited ${String(code)} before its URL. stderr:\n${stderr}`));
      });
    });
    expect(stdout).toContain(`invariant-web ${version} is running at http://127.0.0.1:`);
    const { origin, searchParams } = new URL(url);
    // health says "degraded" until the dashboard's own worker is online (a second or two after its URL)
    let health = await fetch(`${origin}/api/health`);
    for (const started = Date.now(); health.status !== 200 && Date.now() - started < 60_000;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      health = await fetch(`${origin}/api/health`);
    }
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    // a page from the packed Next.js build, and the API over the database (the shipped SQLite addon)
    const headers = { authorization: `Bearer ${searchParams.get("token") ?? ""}` };
    const page = await fetch(`${origin}/projects`, { headers });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    const projects = await fetch(`${origin}/api/trpc/projects.list`, { headers });
    expect(await projects.json()).toEqual({ result: { data: [] } });
    // the workflow commands of the installed package, through this dashboard
    const listed = spawnSync("npx", ["invariant-web", "project", "list", "--json", "--data-dir", dataDir], {
      cwd: installDir,
      env: npmEnv(),
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(listed.status, listed.stderr).toBe(0);
    const envelope: unknown = cliResultSchema("project list").parse(JSON.parse(listed.stdout));
    expect(envelope).toMatchObject({ ok: true, data: { projects: [] } });
    const usage = spawnSync("npx", ["invariant-web", "study", "show", "--json", "--data-dir", dataDir], {
      cwd: installDir,
      env: npmEnv(),
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(usage.status).toBe(2); // neither a study id nor --last
    expect(cliFailureSchema.parse(JSON.parse(usage.stdout)).error.kind).toBe("usage");
    const group = child.pid ?? 0;
    process.kill(-group, "SIGTERM");
    await exited;
    // nothing of it is left: npx, the launcher, its worker and its private Redis all end
    const deadline = Date.now() + 40_000;
    while (processGroup(group).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    expect(processGroup(group)).toEqual([]);
    launcherPid = null;
  }, 300_000);
});
