import fs from "node:fs";
import { bytesOf } from "../../lib/files/byte-path";
import { readPacked } from "./git-pack";
import { packPath, type Manifest, type ManifestEntry } from "./manifest";

/** Reads snapshot content (file bytes, or a link's target) straight out of the snapshot's pack. */
export interface SnapshotContent {
  read(entry: Pick<ManifestEntry, "type" | "offset" | "size" | "target">): Buffer;
  close(): void;
}

export function openSnapshotContent(options: { dataDir: string; manifest: Manifest }): SnapshotContent {
  const fd = fs.openSync(packPath(options.dataDir, options.manifest), "r");
  return {
    read: (entry) =>
      entry.type === "symlink" ? bytesOf(entry.target ?? "") : readPacked(fd, entry.offset, entry.size),
    close: () => fs.closeSync(fd),
  };
}
