import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { writeBundle, type BundleEntry } from "../../../lib/files/file-bundle";
import { createKeyedLock } from "../locks/keyed-lock";
import { dataDirPaths } from "../storage/data-dir";
import { fileEntry, listTree } from "./bundle-paths";

/**
 * Installed dependencies travel to a worker on another host as one archive: a bundle (file-bundle.ts) of
 * the dependency step's output folders (`node_modules/…`, `.venv/…`, links and modes kept), made once on
 * the dashboard host the first time a worker asks, and named by its sha256. The tree it is made from
 * never changes after its step (trials see it through overlays), so the archive never goes stale; it is
 * removed with its dependency folder. A worker fetches it in ranges (resumable) and checks the hash
 * before unpacking it (dependency-fetch.ts).
 */
export const dependencyArchiveMetaSchema = z.object({
  dirId: z.string().regex(/^deps-[0-9a-f]{24}$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  files: z.number().int().nonnegative(),
  outputs: z.array(z.string()),
});
export type DependencyArchiveMeta = z.infer<typeof dependencyArchiveMetaSchema>;

/** The bundle's entries: every file and link of each output, at `<output>/<path>`. */
async function* outputEntries(tree: string, outputs: readonly string[], count: { files: number }) {
  for (const output of outputs) {
    const root = path.join(tree, output);
    if (!(await fsp.lstat(root).catch(() => null))?.isDirectory()) continue;
    for (const { rel } of await listTree(root)) {
      count.files += 1;
      yield (await fileEntry({ root, rel, as: `${output}/${rel}` })) as BundleEntry;
    }
  }
}

const lock = createKeyedLock();

/** The archive of a dependency folder's outputs: made (under a temporary name, then renamed) unless it exists. */
export function dependencyArchive(options: {
  dataDir: string;
  dirId: string;
  outputs: readonly string[];
}): Promise<DependencyArchiveMeta> {
  const folder = dataDirPaths(options.dataDir).dependencyDir(options.dirId);
  return lock(options.dirId, async () => {
    const known = await fsp.readFile(folder.archiveMeta, "utf8").catch(() => null);
    if (known && fs.existsSync(folder.archive)) return dependencyArchiveMetaSchema.parse(JSON.parse(known));
    if (!(await fsp.stat(folder.tree).catch(() => null))?.isDirectory())
      throw new Error(`The dependency folder ${options.dirId} has no installed tree on the dashboard host.`);
    const temp = path.join(folder.dir, `.archive-${process.pid}-${randomBytes(6).toString("hex")}`);
    const hash = createHash("sha256");
    const count = { files: 0 };
    let bytes = 0;
    try {
      const hashed = async function* () {
        for await (const chunk of writeBundle(outputEntries(folder.tree, options.outputs, count))) {
          hash.update(chunk);
          bytes += chunk.length;
          yield chunk;
        }
      };
      await pipeline(Readable.from(hashed()), fs.createWriteStream(temp, { mode: 0o600 }));
      const meta: DependencyArchiveMeta = {
        dirId: options.dirId,
        sha256: hash.digest("hex"),
        bytes,
        files: count.files,
        outputs: [...options.outputs],
      };
      await fsp.rename(temp, folder.archive);
      await fsp.writeFile(`${folder.archiveMeta}.tmp`, JSON.stringify(meta));
      await fsp.rename(`${folder.archiveMeta}.tmp`, folder.archiveMeta);
      return meta;
    } finally {
      await fsp.rm(temp, { force: true });
    }
  });
}

/** The archive's bytes from `start` (a resumed fetch), with its total size. */
export async function dependencyArchiveStream(options: {
  dataDir: string;
  dirId: string;
  start: number;
}): Promise<{ stream: NodeJS.ReadableStream; start: number; total: number }> {
  const file = dataDirPaths(options.dataDir).dependencyDir(options.dirId).archive;
  const total = (await fsp.stat(file)).size;
  const start = Math.min(Math.max(0, options.start), total);
  return { stream: fs.createReadStream(file, { start }), start, total };
}
