import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import {
  DevcontainerRefusal,
  MAX_DEVCONTAINER_BYTES,
  parseDevcontainer,
  type DevcontainerConfig,
} from "./devcontainer-config";
import { messageOf } from "../../../shared/error-message";

const run = promisify(execFile);

/** Where a project's devcontainer.json may be, in the order VS Code looks. */
export const DEVCONTAINER_FILES = [".devcontainer/devcontainer.json", ".devcontainer.json"] as const;
/** The name our copy of the Dockerfile has inside the build context (a context file by that name is left out). */
export const CONTEXT_DOCKERFILE = ".invariant-devcontainer.Dockerfile";
export const MAX_DOCKERFILE_BYTES = 1024 * 1024;
/** A build context larger than this (or with more entries) is refused: point build.context at a smaller folder. */
export const MAX_CONTEXT_BYTES = 2 * 1024 ** 3;
export const MAX_CONTEXT_ENTRIES = 200_000;

/** A project's devcontainer.json, read and validated, with its Dockerfile's text when it has one. */
export interface DevcontainerFound {
  file: string;
  config: DevcontainerConfig;
  dockerfile: { text: string; sha256: string } | null;
}

function inside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * A path of the project resolved on disk: refused when it leaves the project, lexically (`..`) or
 * through a symlink anywhere on the way (a hostile repository's `.devcontainer -> /`).
 */
async function resolveInProject(options: { projectDir: string; relative: string; what: string; file: string }) {
  const root = await fs.realpath(options.projectDir);
  const lexical = path.resolve(options.projectDir, options.relative);
  const refusal = () =>
    new DevcontainerRefusal(options.file, [
      `${options.what} (${JSON.stringify(options.relative || ".")} in the project) is outside the project: it must stay inside the project's folder, through no symlink that leads out`,
    ]);
  if (!inside(path.resolve(options.projectDir), lexical)) throw refusal();
  let real: string;
  try {
    real = await fs.realpath(lexical);
  } catch {
    throw new DevcontainerRefusal(options.file, [
      `${options.what} (${JSON.stringify(options.relative || ".")} in the project) does not exist`,
    ]);
  }
  if (!inside(root, real)) throw refusal();
  return real;
}

/** Reads a regular file of at most `maxBytes` (through no symlink out of the project). */
async function readProjectFile(options: {
  projectDir: string;
  relative: string;
  what: string;
  file: string;
  maxBytes: number;
}): Promise<string> {
  const real = await resolveInProject(options);
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new DevcontainerRefusal(options.file, [`${options.what} is not a file`]);
  if (stat.size > options.maxBytes)
    throw new DevcontainerRefusal(options.file, [`${options.what} is larger than ${options.maxBytes / 1024} KiB`]);
  return fs.readFile(real, "utf8");
}

/** Which devcontainer.json the project has (null: none). */
export async function findDevcontainerFile(projectDir: string): Promise<string | null> {
  for (const file of DEVCONTAINER_FILES) {
    const stat = await fs.lstat(path.join(projectDir, file)).catch(() => null);
    if (stat) return file;
  }
  return null;
}

/** The project's devcontainer.json, validated (throws DevcontainerRefusal); null when it has none. */
export async function readDevcontainer(projectDir: string): Promise<DevcontainerFound | null> {
  const file = await findDevcontainerFile(projectDir);
  if (!file) return null;
  const text = await readProjectFile({
    projectDir,
    relative: file,
    what: file,
    file,
    maxBytes: MAX_DEVCONTAINER_BYTES,
  });
  const config = parseDevcontainer({ file, text });
  if (config.source.kind !== "dockerfile") return { file, config, dockerfile: null };
  const dockerfile = await readProjectFile({
    projectDir,
    relative: config.source.dockerfile,
    what: `build.dockerfile`,
    file,
    maxBytes: MAX_DOCKERFILE_BYTES,
  });
  // resolved now, so a context outside the project is refused before anything is queued
  await resolveInProject({ projectDir, relative: config.source.context, what: "build.context", file });
  return {
    file,
    config,
    dockerfile: { text: dockerfile, sha256: createHash("sha256").update(dockerfile).digest("hex") },
  };
}

/** Counts the context's entries and bytes without following a symlink; refuses one past the limits. */
async function measureContext(options: { dir: string; file: string; limits: { bytes: number; entries: number } }) {
  let bytes = 0;
  let entries = 0;
  const pending = [options.dir];
  while (pending.length > 0) {
    const dir = pending.pop() ?? "";
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      entries += 1;
      if (entry.isDirectory()) pending.push(path.join(dir, entry.name));
      else if (entry.isFile()) bytes += (await fs.lstat(path.join(dir, entry.name))).size;
      if (entries > options.limits.entries || bytes > options.limits.bytes)
        throw new DevcontainerRefusal(options.file, [
          `the build context is larger than ${Math.round(options.limits.bytes / 1024 ** 2)} MiB or ${options.limits.entries} files: point build.context at a smaller folder`,
        ]);
    }
  }
  return { bytes, entries };
}

/**
 * Packs the build context (plus our copy of the Dockerfile) into a tar under `intoDir` for the worker's
 * engine: GNU tar without -h stores symlinks as links (the engine resolves them inside the context), so
 * nothing outside the project is read. Returns the tar's path.
 */
export async function packBuildContext(options: {
  projectDir: string;
  found: DevcontainerFound;
  intoDir: string;
  limits?: { bytes: number; entries: number };
}): Promise<string> {
  const { found } = options;
  if (found.config.source.kind !== "dockerfile" || !found.dockerfile) throw new Error("no Dockerfile to build");
  const dir = await resolveInProject({
    projectDir: options.projectDir,
    relative: found.config.source.context,
    what: "build.context",
    file: found.file,
  });
  await measureContext({
    dir,
    file: found.file,
    limits: options.limits ?? { bytes: MAX_CONTEXT_BYTES, entries: MAX_CONTEXT_ENTRIES },
  });
  await fs.mkdir(options.intoDir, { recursive: true });
  const id = randomBytes(12).toString("hex");
  const tar = path.join(options.intoDir, `${id}.tar`);
  const staged = path.join(options.intoDir, `${id}.dockerfile`);
  await fs.writeFile(staged, found.dockerfile.text);
  try {
    await run("tar", ["--create", "--file", tar, "--directory", dir, `--exclude=./${CONTEXT_DOCKERFILE}`, "."]);
    await run("tar", [
      "--append",
      "--file",
      tar,
      "--directory",
      options.intoDir,
      `--transform=s|^${id}\\.dockerfile$|${CONTEXT_DOCKERFILE}|`,
      `${id}.dockerfile`,
    ]);
  } catch (error) {
    await fs.rm(tar, { force: true });
    throw new Error(`Could not pack the build context ${found.config.source.context || "."}: ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    await fs.rm(staged, { force: true });
  }
  return tar;
}
