import fs from "node:fs";
import { bytesOf } from "../../../lib/files/byte-path";
import { readPacked } from "./git-pack";
import type { Manifest, ManifestEntry } from "./manifest";
import { dataDirPaths } from "../storage/data-dir";

/** Reads snapshot content (file bytes, or a link's target) straight out of the snapshot's pack. */
export interface SnapshotContent {
  read(entry: Pick<ManifestEntry, "type" | "offset" | "size" | "target">): Buffer;
  close(): void;
}

export function openSnapshotContent(options: { dataDir: string; manifest: Manifest }): SnapshotContent {
  const fd = fs.openSync(dataDirPaths(options.dataDir).snapshot(options.manifest.id).pack(options.manifest.pack), "r");
  return {
    read: (entry) =>
      entry.type === "symlink" ? bytesOf(entry.target ?? "") : readPacked(fd, entry.offset, entry.size),
    close: () => fs.closeSync(fd),
  };
}
