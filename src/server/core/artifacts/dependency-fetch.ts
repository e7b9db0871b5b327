import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { readBundle } from "../../../lib/files/file-bundle";
import { messageOf } from "../../../shared/error-message";
import { dataDirPaths } from "../storage/data-dir";
import { touchCacheEntry } from "./artifact-cache";
import { bundlePath, writeInTree } from "./bundle-paths";
import type { DependencyArchiveMeta } from "./dependency-archive";

/** Where the archive's bytes come from: its description, and its bytes from an offset (a resumed fetch). */
export interface DependencyArchiveSource {
  meta(): Promise<DependencyArchiveMeta>;
  /** The bytes from `start`; `start` is where the answer really begins (0 when the source cannot resume). */
  from(start: number): Promise<{ start: number; body: AsyncIterable<Buffer | Uint8Array> }>;
}

/** How many times a cut-off download is resumed before the fetch fails. */
const ATTEMPTS = 5;

async function sizeOf(file: string): Promise<number> {
  return (await fsp.stat(file).catch(() => null))?.size ?? 0;
}

/** Downloads the archive into `part`, resuming from what it already holds after a cut-off answer. */
async function download(source: DependencyArchiveSource, meta: DependencyArchiveMeta, part: string): Promise<number> {
  let resumed = 0;
  for (let attempt = 1; ; attempt += 1) {
    let have = await sizeOf(part);
    if (have > meta.bytes) {
      await fsp.rm(part, { force: true });
      have = 0;
    }
    if (have === meta.bytes) return resumed;
    try {
      if (have > 0) resumed += 1;
      const answer = await source.from(have);
      // a source that could not resume sends everything again: start the file over
      const out = fs.createWriteStream(part, { flags: answer.start === have ? "a" : "w", mode: 0o600 });
      await pipeline(answer.body, out);
    } catch (error) {
      if (attempt >= ATTEMPTS)
        throw new Error(
          `Could not fetch installed dependencies ${meta.dirId} from the dashboard after ${ATTEMPTS} attempts: ${messageOf(error)}`,
          { cause: error },
        );
    }
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Makes sure this data dir holds a dependency folder's installed tree (a worker on another host): when it
 * is missing, the archive is downloaded into `dependencies/.fetch-<sha256>.part` (a download cut off is
 * resumed from what arrived, also by the next job after a crash), checked against its sha256, unpacked
 * under a temporary folder and renamed into place, so a half-fetched or altered tree is never mounted.
 * A folder already here is only marked used (artifact-cache.ts prunes unused ones). Returns what was
 * fetched, or null when nothing was.
 */
export async function fetchInstalledDependencies(options: {
  dataDir: string;
  dirId: string;
  source: DependencyArchiveSource;
}): Promise<{ meta: DependencyArchiveMeta; resumed: number } | null> {
  const paths = dataDirPaths(options.dataDir);
  const folder = paths.dependencyDir(options.dirId);
  if ((await fsp.stat(folder.tree).catch(() => null))?.isDirectory()) {
    await touchCacheEntry(folder.dir);
    return null;
  }
  const meta = await options.source.meta();
  if (meta.dirId !== options.dirId)
    throw new Error(`The dashboard described dependency folder ${meta.dirId} when ${options.dirId} was asked for.`);
  await fsp.mkdir(paths.dependencies, { recursive: true, mode: 0o700 });
  const part = path.join(paths.dependencies, `.fetch-${meta.sha256}.part`);
  const resumed = await download(options.source, meta, part);
  const actual = await sha256Of(part);
  if (actual !== meta.sha256) {
    await fsp.rm(part, { force: true });
    throw new Error(
      `The installed dependencies ${meta.dirId} arrived with other bytes than their sha256 (${meta.sha256.slice(0, 12)}…, got ${actual.slice(0, 12)}…): nothing was kept; the next trial fetches them again.`,
    );
  }
  const temp = await fsp.mkdtemp(path.join(paths.dependencies, `.tmp-${options.dirId}-`));
  try {
    const tree = path.join(temp, "tree");
    await fsp.mkdir(tree);
    await readBundle({
      source: fs.createReadStream(part) as AsyncIterable<Buffer>,
      onEntry: (header, body) => writeInTree({ root: tree, rel: bundlePath(header), header, body }),
    });
    if ((await fsp.stat(folder.tree).catch(() => null))?.isDirectory()) return null; // unpacked meanwhile
    await fsp.rm(folder.dir, { recursive: true, force: true });
    await fsp.rename(temp, folder.dir);
  } finally {
    await fsp.rm(temp, { recursive: true, force: true });
  }
  await fsp.rm(part, { force: true });
  return { meta, resumed };
}
