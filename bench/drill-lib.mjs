// What the drill benches share (kill-drill, load-drill): polling with a deadline, the real launcher on a
// data dir with its URL and tRPC client, a project with a ready environment, and removing what a project left.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { trpcClient } from "./big-study-lib.mjs";
import { ROOT, startProcess } from "./lib.mjs";

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const docker = (args) => spawnSync("docker", args, { encoding: "utf8" }).stdout.split("\n").filter(Boolean);

/** Reads until `done(value)` holds; throws after `timeoutMs`. */
export async function until(what, read, done, timeoutMs, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** `invariant-web` on a data dir, once it printed its URL: the process, its origin, token and tRPC client. */
export async function startLauncher(dataDir, options) {
  const app = startProcess(
    process.execPath,
    [path.join(ROOT, "bin", "invariant-web.mjs"), "--data-dir", dataDir, "--port", "0", "--no-open"],
    options,
  );
  await until(
    "the URL",
    () => app.stdout(),
    (out) => /is running at (\S+)/.test(out) || app.child.exitCode !== null,
    90_000,
    20,
  );
  if (app.child.exitCode !== null) throw new Error(`invariant-web exited: ${app.stderr()}`);
  const url = new URL(/is running at (\S+)/.exec(app.stdout())[1]);
  const token = url.searchParams.get("token");
  return { ...app, origin: url.origin, token, api: trpcClient(url.origin, token) };
}

/** Adds the project and waits for its first environment version to be ready; returns the project's id. */
export async function readyProject(api, hostPath, name) {
  const project = await api.mutate("projects.add", { hostPath, name });
  await api.mutate("environments.prepare", { projectId: project.id });
  const overview = await until(
    "the environment",
    () => api.query("environments.overview", { projectId: project.id }),
    (o) => o.versions.some((version) => version.status !== "building"),
    600_000,
    1000,
  );
  if (overview.versions[0]?.status !== "ready") throw new Error(`environment ${overview.versions[0]?.status}`);
  return project.id;
}

/** Removes a project's containers and images, the data dir and the project's folder. */
export function removeDrillLeftovers({ projectId, dataDir, projectDir }) {
  if (projectId) {
    for (const id of docker(["ps", "-aq", "--filter", `label=invariant.project=${projectId}`]))
      spawnSync("docker", ["rm", "-f", id], { stdio: "ignore" });
    const images = docker(["images", "-q", "--filter", `label=invariant.project=${projectId}`]);
    if (images.length > 0) spawnSync("docker", ["rmi", "-f", ...new Set(images)], { stdio: "ignore" });
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(path.dirname(projectDir), { recursive: true, force: true });
}
