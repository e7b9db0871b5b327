import fsp from "node:fs/promises";
import path from "node:path";
import { FileTooLargeError, NotRegularFileError } from "../../../lib/files/file-read";
import { checkRealParents, PathThroughSymlinkError, readFileInsideTree } from "../../../lib/files/tree-read";
import type { NetworkMode } from "../../../shared/project-schemas";
import type { ContainerLabels, Mount, ResourceLimits } from "../../core/runtime/container-spec";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { DiskOverrun } from "../../core/runtime/disk-budget";
import { parseVerdict } from "../verdicts/parse-verdict";
import type { Verdict } from "../verdicts/verdict";

const KEEP_OUTPUT_CHARS = 2 * 1024 * 1024;
const MAX_JUNIT_FILES = 200;
const MAX_JUNIT_BYTES = 32 * 1024 * 1024;

export interface EvaluationResult {
  verdict: Verdict;
  exitCode: number | null;
  timedOut: boolean;
  /** The test command wrote past the disk budget and was stopped (its exit code is then null, like a timeout's). */
  overDisk?: DiskOverrun | null;
  durationMs: number;
  /** The last 2 MiB of the command's combined output. */
  output: string;
}

/**
 * JUnit XML the command wrote: one file, or every *.xml in a directory (non-recursive). Missing → [].
 * The tree is the test command's to write, so nothing in it is followed: a symlink anywhere on the path
 * or in place of a report is skipped, a FIFO cannot hang the read, and reading stops at 32 MiB in all.
 */
async function readJunit(options: { tree: string; junitPath: string | null }): Promise<string[]> {
  const { tree, junitPath } = options;
  if (!junitPath) return [];
  try {
    await checkRealParents({ root: tree, rel: junitPath });
  } catch {
    return [];
  }
  const stat = await fsp.lstat(path.join(tree, junitPath)).catch(() => null);
  if (!stat) return [];
  const files = stat.isDirectory()
    ? (await fsp.readdir(path.join(tree, junitPath), { withFileTypes: true }))
        .filter((entry) => entry.isFile() && entry.name.endsWith(".xml"))
        .map((entry) => `${junitPath}/${entry.name}`)
        .sort()
        .slice(0, MAX_JUNIT_FILES)
    : stat.isFile()
      ? [junitPath]
      : [];
  const texts: string[] = [];
  let budget = MAX_JUNIT_BYTES;
  for (const rel of files) {
    try {
      const data = await readFileInsideTree({ root: tree, rel, maxBytes: budget });
      budget -= data.length;
      texts.push(data.toString("utf8"));
    } catch (error) {
      if (error instanceof FileTooLargeError) break;
      if (error instanceof NotRegularFileError || error instanceof PathThroughSymlinkError) continue;
      throw error;
    }
  }
  return texts;
}

/**
 * Runs the test command once in a fresh container of `image` with `tree` mounted at /workspace (or
 * `workspace`, an overlay whose upper layer is `tree`) and turns its output (and any JUnit files it wrote,
 * read from `tree`) into a verdict. The container is always removed.
 */
export async function runEvaluation(options: {
  runtime: ContainerRuntime;
  image: string;
  tree: string;
  /** The /workspace mount, when it is not `tree` itself (a copy-on-write workspace's evaluation layer). */
  workspace?: Mount;
  extraMounts: Mount[];
  testCommand: string;
  junitPath: string | null;
  network: NetworkMode;
  limits: ResourceLimits;
  runAsRoot?: boolean;
  diskBudgetBytes?: number | null;
  timeoutMs: number;
  labels: ContainerLabels;
  onOutput: (text: string) => void;
  onContainer?: (containerId: string | null) => void;
  clock?: () => number;
}): Promise<EvaluationResult> {
  const clock = options.clock ?? Date.now;
  const containerId = await options.runtime.createContainer({
    image: options.image,
    command: ["/bin/sh", "-c", options.testCommand],
    env: { HOME: "/root", CI: "1" },
    workingDir: "/workspace",
    labels: options.labels,
    limits: options.limits,
    network: options.network,
    runAsRoot: options.runAsRoot,
    diskBudgetBytes: options.diskBudgetBytes,
    mounts: [
      options.workspace ?? { hostPath: options.tree, containerPath: "/workspace", readOnly: false },
      ...options.extraMounts,
    ],
  });
  options.onContainer?.(containerId);
  let output = "";
  const started = clock();
  try {
    const { exitCode, timedOut, overDisk } = await options.runtime.runToExit(
      containerId,
      (chunk) => {
        options.onOutput(chunk);
        output += chunk;
        if (output.length > KEEP_OUTPUT_CHARS * 2) output = output.slice(-KEEP_OUTPUT_CHARS);
      },
      { timeoutMs: options.timeoutMs },
    );
    const durationMs = clock() - started;
    output = output.slice(-KEEP_OUTPUT_CHARS);
    const junitXml = await readJunit({ tree: options.tree, junitPath: options.junitPath });
    const cut = timedOut || overDisk !== null;
    const verdict = parseVerdict({ output, exitCode: cut ? null : exitCode, junitXml });
    return { verdict, exitCode: cut ? null : exitCode, timedOut, overDisk, durationMs, output };
  } finally {
    options.onContainer?.(null);
    await options.runtime.removeContainer(containerId);
  }
}
