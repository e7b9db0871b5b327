import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { fromText } from "../../lib/files/byte-path";
import type { Mount } from "../runtime/container-spec";
import type { TestFileView } from "../../shared/study-schemas";
import { markOpaque, openLayeredTree, type LayeredTree } from "../workspaces/overlay-layers";
import { STALE_RUNNER_STATE } from "./captured-changes";
import { readCapturedFile } from "./test-files";

/**
 * The evaluation of a copy-on-write workspace, without copying it: a fresh layer (`upper`) over the
 * agent's layer and the snapshot's tree (`below`, topmost first), holding the captured files restored
 * byte for byte — written here, so they hide whatever the agent left at their paths, and every directory on
 * their way is a real one in this layer (hiding a file or link the agent put there) — and an empty opaque
 * directory in place of stale runner state. Nothing below is touched. The test command's own writes land
 * in `upper` too, so the JUnit report is read from `upper` alone: one the agent left cannot stand in.
 */
export async function prepareEvaluationLayer(options: {
  dataDir: string;
  studyId: string;
  upper: string;
  below: readonly string[];
  files: readonly TestFileView[];
}): Promise<void> {
  const tree = openLayeredTree([options.upper, ...options.below]);
  for (const file of options.files) {
    const data = await readCapturedFile({ dataDir: options.dataDir, studyId: options.studyId, file });
    const segments = file.path.split("/");
    let rel = "";
    for (const segment of segments.slice(0, -1)) {
      rel = rel ? `${rel}/${segment}` : segment;
      await realDirectory({ tree, upper: options.upper, rel });
    }
    fs.writeFileSync(path.join(options.upper, file.path), data, { mode: 0o644, flag: "wx" });
  }
  for (const name of STALE_RUNNER_STATE) {
    if (typeof tree.lookup(fromText(name)) === "string") continue;
    const hide = path.join(options.upper, name);
    await fsp.mkdir(hide, { mode: 0o755 });
    markOpaque(hide);
  }
}

/** Makes `rel` a directory of the layer (with the mode of the one below, if that is a directory). */
async function realDirectory(options: { tree: LayeredTree; upper: string; rel: string }): Promise<void> {
  const own = path.join(options.upper, options.rel);
  if ((await fsp.lstat(own).catch(() => null))?.isDirectory()) return;
  const below = options.tree.lookup(fromText(options.rel));
  const mode = typeof below !== "string" && below.type === "dir" ? below.stat.mode & 0o7777 : 0o755;
  await fsp.mkdir(own, { mode });
  await fsp.chmod(own, mode);
}

/** The evaluation's /workspace: its layer over the agent's and the snapshot's (`below`, topmost first). */
export function evaluationMount(options: { upper: string; workDir: string; below: readonly string[] }): Mount {
  return {
    hostPath: options.below.at(-1) ?? "",
    containerPath: "/workspace",
    readOnly: false,
    overlay: {
      upperDir: options.upper,
      workDir: options.workDir,
      lowerDirs: options.below.slice(0, -1),
      userXattr: true,
    },
  };
}
