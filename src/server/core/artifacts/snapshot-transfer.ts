import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { readBundle, type BundleEntry } from "../../../lib/files/file-bundle";
import { readManifest } from "../snapshots/manifest";
import { dataDirPaths, snapshotPaths } from "../storage/data-dir";
import { bundlePath, fileEntry, listTree, writeInTree } from "./bundle-paths";

/**
 * A snapshot travels as a bundle of its directory (manifest.json and git/, whose one pack is the
 * content): everything a worker needs to make workspaces from it. Snapshots are immutable and named by
 * their content, so a worker keeps what it fetched (`<its data dir>/snapshots/<id>/`) and fetches a
 * snapshot at most once.
 */
export async function* snapshotBundle(options: { dataDir: string; snapshotId: string }): AsyncGenerator<BundleEntry> {
  const dir = dataDirPaths(options.dataDir).snapshot(options.snapshotId).dir;
  for (const { rel } of await listTree(dir)) yield await fileEntry({ root: dir, rel, as: rel });
}

/** Whether this data dir holds the snapshot (its manifest is written last, by the rename). */
export function hasSnapshot(options: { dataDir: string; snapshotId: string }): boolean {
  return fs.existsSync(dataDirPaths(options.dataDir).snapshot(options.snapshotId).manifest);
}

/**
 * Writes a fetched snapshot into this data dir: built under snapshots/.tmp-*, checked (its manifest
 * names the id asked for), then renamed into place, so a half-fetched snapshot is never used.
 */
export async function receiveSnapshot(options: {
  dataDir: string;
  snapshotId: string;
  source: AsyncIterable<Buffer | Uint8Array>;
}): Promise<void> {
  const paths = dataDirPaths(options.dataDir);
  await fsp.mkdir(paths.snapshots, { recursive: true, mode: 0o700 });
  const temp = await fsp.mkdtemp(path.join(paths.snapshots, ".tmp-fetch-"));
  try {
    await readBundle({
      source: options.source,
      onEntry: (header, body) => writeInTree({ root: temp, rel: bundlePath(header), header, body }),
    });
    const manifest = JSON.parse(await fsp.readFile(snapshotPaths(temp).manifest, "utf8")) as { id?: unknown };
    if (manifest.id !== options.snapshotId)
      throw new Error(
        `The dashboard sent a snapshot whose manifest names ${String(manifest.id)}, not ${options.snapshotId}.`,
      );
    const final = paths.snapshot(options.snapshotId).dir;
    if (hasSnapshot(options)) return; // fetched meanwhile by another job
    await fsp.rm(final, { recursive: true, force: true });
    await fsp.rename(temp, final);
    await readManifest({ dataDir: options.dataDir, snapshotId: options.snapshotId });
  } finally {
    await fsp.rm(temp, { recursive: true, force: true });
  }
}
