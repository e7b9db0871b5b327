import fsp from "node:fs/promises";
import path from "node:path";
import { fromText } from "../../../lib/files/byte-path";
import { FileTooLargeError, NotRegularFileError, sha256Of } from "../../../lib/files/file-read";
import { PathThroughSymlinkError } from "../../../lib/files/tree-read";
import type { WorkspaceFiles } from "../../core/workspaces/workspace-files";
import { MAX_CAPTURED_CHANGES, type CapturedChange } from "../../../shared/captured-files";
import { MAX_TEST_FILE_BYTES } from "../../../shared/study-inputs";
import type { TestFileView } from "../../../shared/study-schemas";
import type { Manifest } from "../../core/snapshots/manifest";

/**
 * What an agent did to the files that judge it, found before they are put back: each captured file
 * (test or runner config) compared with its captured bytes, and the study's JUnit path compared with
 * the snapshot (a report there that the snapshot did not have is one the agent left). The evaluation
 * then restores the captured files and clears the JUnit path, so none of it changes the verdict; the
 * list is the trial's tamper indicator.
 */
const MAX_REPORT_FILES = 200;

/** How the tree holds `rel` now: its sha256, or why it is not a regular file. */
async function stateOf(files: WorkspaceFiles, rel: string): Promise<{ sha256: string } | "deleted" | "replaced"> {
  try {
    const data = await files.readFile(rel, MAX_TEST_FILE_BYTES);
    return { sha256: sha256Of(data) };
  } catch (error) {
    if (error instanceof FileTooLargeError) return { sha256: "too-large" };
    if (error instanceof PathThroughSymlinkError) return "replaced";
    if (error instanceof NotRegularFileError) return error.reason === "missing" ? "deleted" : "replaced";
    throw error;
  }
}

/** How the tree holds a captured symlink now: the sha256 of its target text, or why it is not a symlink. */
async function linkStateOf(files: WorkspaceFiles, rel: string): Promise<{ sha256: string } | "deleted" | "replaced"> {
  try {
    const target = await files.readLink(rel);
    if (target) return { sha256: sha256Of(target) };
    return (await files.kind(rel)) === null ? "deleted" : "replaced";
  } catch (error) {
    if (error instanceof PathThroughSymlinkError) return "replaced";
    if (error instanceof NotRegularFileError) return error.reason === "missing" ? "deleted" : "replaced";
    throw error;
  }
}

/** Reports at the JUnit path (the file, or the *.xml files of the directory) that differ from the snapshot's. */
async function leftReports(options: {
  files: WorkspaceFiles;
  junitPath: string;
  manifest: Manifest;
}): Promise<string[]> {
  const { files, junitPath } = options;
  try {
    await files.checkParents(junitPath);
  } catch {
    return []; // nothing readable there (or a link the evaluation clears anyway)
  }
  const kind = await files.kind(junitPath);
  if (!kind) return [];
  const candidates =
    kind === "dir"
      ? (await files.readdir(junitPath))
          .filter((name) => name.endsWith(".xml"))
          .map((name) => `${junitPath}/${name}`)
          .sort()
          .slice(0, MAX_REPORT_FILES)
      : [junitPath];
  const inSnapshot = new Map(options.manifest.entries.map((entry) => [entry.path, entry.sha256]));
  const left: string[] = [];
  for (const rel of candidates) {
    const state = await stateOf(files, rel).catch(() => "replaced" as const);
    if (state === "deleted") continue;
    const before = inSnapshot.get(fromText(rel));
    if (typeof state === "object" && before === state.sha256) continue;
    left.push(rel);
  }
  return left;
}

/** The captured files the agent changed in its workspace, and any JUnit report it left behind. */
export async function findCapturedChanges(options: {
  workspace: WorkspaceFiles;
  files: readonly TestFileView[];
  junitPath: string | null;
  manifest: Manifest;
}): Promise<CapturedChange[]> {
  const changes: CapturedChange[] = [];
  for (const file of options.files) {
    const state =
      file.kind === "symlink"
        ? await linkStateOf(options.workspace, file.path)
        : await stateOf(options.workspace, file.path);
    if (typeof state === "object" && state.sha256 === file.sha256) continue;
    const change = typeof state === "object" ? "modified" : state;
    changes.push({ path: file.path, role: file.role, change });
  }
  if (options.junitPath) {
    const reports = await leftReports({
      files: options.workspace,
      junitPath: options.junitPath,
      manifest: options.manifest,
    });
    for (const rel of reports) changes.push({ path: rel, role: "report", change: "report-left" });
  }
  return changes.slice(0, MAX_CAPTURED_CHANGES);
}

/**
 * Runner state an agent could plant to choose which tests run: pytest's cache feeds `--lf` / `--ff` /
 * `--nf` (a "last failed" list naming only passing tests would make `pytest --lf` run just those).
 * Snapshots never contain it (always excluded), so in an evaluation it can only be the agent's.
 */
export const STALE_RUNNER_STATE = [".pytest_cache"] as const;

/** Removes the runner state above from the top of an evaluation tree (a symlink there is removed, not followed). */
export async function clearStaleRunnerState(options: { tree: string }): Promise<void> {
  for (const name of STALE_RUNNER_STATE) {
    const target = path.join(options.tree, name);
    const stat = await fsp.lstat(target).catch(() => null);
    if (!stat) continue;
    if (stat.isDirectory()) await fsp.rm(target, { recursive: true, force: true });
    else await fsp.unlink(target);
  }
}

/**
 * Removes whatever is at the JUnit path before the test command runs (a file or link there; for a
 * directory, every *.xml in it — what the reader reads), so the only report read afterwards is one the
 * command itself wrote. A parent on the way that is not a real directory is removed instead.
 */
export async function clearJunitPath(options: { tree: string; junitPath: string | null }): Promise<void> {
  if (!options.junitPath) return;
  let current = options.tree;
  for (const segment of options.junitPath.split("/")) {
    current = path.join(current, segment);
    const stat = await fsp.lstat(current).catch(() => null);
    if (!stat) return;
    if (!stat.isDirectory()) {
      await fsp.unlink(current);
      return;
    }
  }
  for (const entry of await fsp.readdir(current)) {
    if (entry.endsWith(".xml")) await fsp.rm(path.join(current, entry), { recursive: true, force: true });
  }
}
