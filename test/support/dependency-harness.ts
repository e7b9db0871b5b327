import fs from "node:fs";
import path from "node:path";
import type { EnvironmentVersionView } from "../../src/server/web/environments/environments.queries";
import type { StudyWeb } from "./study-harness";

/** Runs the project's dependency step and waits for its version to finish (ready or failed, with its log on failure). */
export async function installDependencies(options: {
  web: StudyWeb;
  projectId: string;
  timeoutMs: number;
}): Promise<EnvironmentVersionView> {
  const { web } = options;
  const building = await web.services.dependencies.install(options.projectId);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const version = (await web.services.environments.overview(options.projectId)).versions.find(
      (v) => v.id === building.id,
    );
    if (version && version.status !== "building") {
      if (version.status === "failed")
        throw new Error(`dependency step failed: ${version.error}\n${await web.services.environments.log(version.id)}`);
      return version;
    }
    if (Date.now() > deadline) throw new Error(`dependency step still building after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every path under `root` with its size and mtime: a fingerprint that changes if anything is written there. */
export function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const stat = fs.lstatSync(full);
      out.push(`${path.relative(root, full)} ${entry.isDirectory() ? "d" : stat.size} ${stat.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out.sort();
}

export async function textOf(chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>): Promise<string> {
  let text = "";
  for await (const chunk of chunks) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  return text;
}

/** Output without terminal colours (runners colour their output when CI is set). */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
