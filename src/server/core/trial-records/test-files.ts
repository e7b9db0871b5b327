import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { FileTooLargeError, NotRegularFileError } from "../../../lib/files/file-read";
import { PathThroughSymlinkError, readFileInsideTree } from "../../../lib/files/tree-read";
import type { CapturedFileKind, CapturedFileRole } from "../../../shared/captured-files";
import { dataDirPaths } from "../storage/data-dir";
import { MAX_TEST_FILE_BYTES, MAX_TEST_FILES_TOTAL_BYTES, type TestFileInput } from "../../../shared/study-inputs";
import { readCapturedLink } from "./test-file-links";
import type { TestFileView } from "../../../shared/study-schemas";

/**
 * A study's captured files (tests and runner config): their exact bytes, taken when the study is created, stored by
 * sha256 under <dataDir>/studies/<studyId>/test-files/, and written back over every evaluation's
 * tree, so an agent that edits or deletes a test cannot weaken the checks.
 */
export function testFilesDir(options: { dataDir: string; studyId: string }): string {
  return dataDirPaths(options.dataDir).testFiles(options.studyId);
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Reads a regular file inside `root` without following a symlink anywhere on the way; a symlink as the
 * last segment is captured as a link (its target text), refused when it points outside the project.
 */
async function readProjectFile(options: {
  root: string;
  relative: string;
  field: string;
}): Promise<{ kind: CapturedFileKind; data: Buffer }> {
  const { root, relative, field } = options;
  let current = root;
  const segments = relative.split("/");
  for (const [index, segment] of segments.entries()) {
    current = path.join(current, segment);
    const stat = await fsp.lstat(current).catch(() => null);
    if (!stat)
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative} is not in the project (${current} does not exist). Pick the file from the project tree or upload it.`,
      });
    const last = index === segments.length - 1;
    if (last && stat.isSymbolicLink()) return { kind: "symlink", data: await readCapturedLink(options) };
    if (stat.isSymbolicLink())
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative} goes through the symbolic link ${segments.slice(0, index + 1).join("/")}; capture the link itself, or pick the real file it leads to.`,
      });
    if (!last && !stat.isDirectory())
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative}: ${segments.slice(0, index + 1).join("/")} is not a directory.`,
      });
    if (last && !stat.isFile())
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative} is not a regular file; test files are files.`,
      });
    if (last && stat.size > MAX_TEST_FILE_BYTES)
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative} is ${stat.size} bytes; a test file is at most 5 MiB.`,
      });
  }
  // the checks above can be raced: the read itself refuses a link anywhere on the way, never follows a
  // symlink swapped in, cannot hang on a FIFO (O_NOFOLLOW | O_NONBLOCK) and stops at the size limit
  try {
    return { kind: "file", data: await readFileInsideTree({ root, rel: relative, maxBytes: MAX_TEST_FILE_BYTES }) };
  } catch (error) {
    if (
      error instanceof FileTooLargeError ||
      error instanceof NotRegularFileError ||
      error instanceof PathThroughSymlinkError
    )
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${relative} changed while it was being read (${error.message}); pick the file again.`,
      });
    throw error;
  }
}

export interface CapturedTestFile {
  path: string;
  role: CapturedFileRole;
  /** Absent: a file. */
  kind?: CapturedFileKind;
  /** The file's bytes, or a symlink's target text. */
  data: Buffer;
  sha256: string;
}

/**
 * Reads every test file (from the project or the upload) into memory; nothing is written. Refuses with the
 * field at fault. Folders and patterns are expanded first (expandTestFiles), so each entry names one path.
 */
export async function readTestFiles(options: {
  projectRoot: string;
  files: readonly (TestFileInput & { field?: string })[];
}): Promise<CapturedTestFile[]> {
  const captured: CapturedTestFile[] = [];
  let total = 0;
  for (const [index, file] of options.files.entries()) {
    const field = file.field ?? `testFiles.${index}.path`;
    const { kind, data } =
      file.source === "upload"
        ? { kind: "file" as const, data: Buffer.from(file.contentBase64, "base64") }
        : await readProjectFile({ root: options.projectRoot, relative: file.path, field });
    if (data.length > MAX_TEST_FILE_BYTES)
      throw new AppError({
        code: "BAD_REQUEST",
        field,
        message: `${file.path} is ${data.length} bytes; a test file is at most 5 MiB.`,
      });
    total += data.length;
    if (total > MAX_TEST_FILES_TOTAL_BYTES)
      throw new AppError({
        code: "BAD_REQUEST",
        field: "testFiles",
        message: `The test files come to more than ${MAX_TEST_FILES_TOTAL_BYTES / 1024 / 1024} MiB (reached at ${file.path}); a study captures at most that. Narrow the folders or patterns, for example tests/unit/** instead of tests/**.`,
      });
    captured.push({ path: file.path, role: file.role, kind, data, sha256: sha256(data) });
  }
  return captured;
}

/** Stores captured files by hash; returns what the study records. */
export async function storeTestFiles(options: {
  dataDir: string;
  studyId: string;
  files: readonly CapturedTestFile[];
}): Promise<TestFileView[]> {
  const dir = testFilesDir(options);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const file of options.files) {
    const target = path.join(dir, file.sha256);
    const temp = `${target}.tmp-${process.pid}`;
    await fsp.writeFile(temp, file.data, { mode: 0o444 });
    await fsp.rename(temp, target);
  }
  return options.files.map((file) => ({
    path: file.path,
    sha256: file.sha256,
    bytes: file.data.length,
    role: file.role,
    kind: file.kind ?? "file",
  }));
}

/** A captured file's stored bytes, checked against its hash. */
export async function readCapturedFile(options: {
  dataDir: string;
  studyId: string;
  file: TestFileView;
}): Promise<Buffer> {
  const { file } = options;
  const data = await fsp.readFile(path.join(testFilesDir(options), file.sha256));
  if (sha256(data) !== file.sha256)
    throw new Error(
      `The stored copy of test file ${file.path} no longer matches its hash ${file.sha256.slice(0, 12)}; the data dir was modified. Create the study again.`,
    );
  return data;
}

/** Removes whatever a path holds (file, symlink or directory) so a captured file can take its place. */
async function clearPath(target: string): Promise<void> {
  const stat = await fsp.lstat(target).catch(() => null);
  if (!stat) return;
  if (stat.isDirectory()) await fsp.rm(target, { recursive: true, force: true });
  else await fsp.unlink(target);
}

/**
 * Writes the captured bytes over `tree` (a captured symlink as a symlink to its captured target). Every parent on the way is made a real directory (a symlink
 * the agent planted there is removed first), and each stored file's hash is checked before use.
 */
export async function restoreTestFiles(options: {
  dataDir: string;
  studyId: string;
  tree: string;
  files: readonly TestFileView[];
}): Promise<void> {
  for (const file of options.files) {
    const data = await readCapturedFile({ ...options, file });
    const segments = file.path.split("/");
    let current = options.tree;
    for (const segment of segments.slice(0, -1)) {
      current = path.join(current, segment);
      const stat = await fsp.lstat(current).catch(() => null);
      if (stat && !stat.isDirectory()) await fsp.unlink(current);
      if (!stat || !stat.isDirectory()) await fsp.mkdir(current);
    }
    const target = path.join(current, segments.at(-1) ?? "");
    await clearPath(target);
    if (file.kind === "symlink") fs.symlinkSync(data, target);
    else fs.writeFileSync(target, data, { mode: 0o644, flag: "wx" });
  }
}
