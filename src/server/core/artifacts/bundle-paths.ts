import { createHash } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { constants } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { bytesOf, fromBytes, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import type { BundleHeader } from "../../../lib/files/file-bundle";

/**
 * Paths that arrive in a bundle are someone else's: each must be relative, '/'-separated, without
 * empty, `.` or `..` segments or NUL, and writing one never follows a link: every parent on the way
 * is made a real directory of the tree being written (a link or file there is removed first), and the
 * file is created with O_EXCL | O_NOFOLLOW. The trees written are fresh folders of our own.
 */
export function bundlePath(header: BundleHeader): BytePath {
  const rel = fromBytes(Buffer.from(header.path, "base64"));
  const segments = rel.split("/");
  if (rel === "" || rel.includes("\0") || segments.some((s) => s === "" || s === "." || s === ".."))
    throw new Error(`A bundled path is not a plain relative path: ${JSON.stringify(rel.slice(0, 200))}.`);
  return rel;
}

export function encodePath(rel: BytePath): string {
  return bytesOf(rel).toString("base64");
}

/** Makes every parent of `rel` a real directory under `root` (removing what else is there). */
async function realParents(root: string, rel: BytePath): Promise<void> {
  const segments = rel.split("/").slice(0, -1);
  let current = "";
  for (const segment of segments) {
    current = current ? `${current}/${segment}` : segment;
    const full = toFsPath(root, current);
    const stat = await fsp.lstat(full).catch(() => null);
    if (stat?.isDirectory()) continue;
    if (stat) await fsp.unlink(full);
    await fsp.mkdir(full, { mode: 0o755 });
  }
}

/** Removes whatever `rel` holds under `root` (file, link or directory) without following a link on the way. */
export async function clearInTree(root: string, rel: BytePath): Promise<void> {
  const segments = rel.split("/");
  let current = "";
  for (const segment of segments.slice(0, -1)) {
    current = current ? `${current}/${segment}` : segment;
    const stat = await fsp.lstat(toFsPath(root, current)).catch(() => null);
    if (!stat?.isDirectory()) return; // nothing real there to remove
  }
  const target = toFsPath(root, rel);
  const stat = await fsp.lstat(target).catch(() => null);
  if (!stat) return;
  if (stat.isDirectory()) await fsp.rm(target, { recursive: true, force: true });
  else await fsp.unlink(target);
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Writes one bundled file or symlink at `rel` under `root`, replacing what was there. */
export async function writeInTree(options: {
  root: string;
  rel: BytePath;
  header: BundleHeader;
  body: AsyncIterable<Buffer>;
}): Promise<void> {
  const { root, rel, header } = options;
  await realParents(root, rel);
  await clearInTree(root, rel);
  const target = toFsPath(root, rel);
  if (header.kind === "symlink") {
    await fsp.symlink(Buffer.from(header.target ?? "", "base64"), target);
    return;
  }
  const fd = fs.openSync(target, CREATE, header.mode === "100755" ? 0o755 : 0o644);
  await pipeline(Readable.from(options.body), fs.createWriteStream(target, { fd }));
}

/** Every regular file and symlink under `dir` (relative byte paths, sorted); a missing dir has none. */
export async function listTree(dir: string): Promise<{ rel: BytePath; kind: "file" | "symlink" }[]> {
  const out: { rel: BytePath; kind: "file" | "symlink" }[] = [];
  async function walk(prefix: BytePath): Promise<void> {
    const at = prefix ? toFsPath(dir, prefix) : Buffer.from(dir);
    const entries = await fsp.readdir(at, { withFileTypes: true, encoding: "buffer" }).catch(() => []);
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${fromBytes(entry.name)}` : fromBytes(entry.name);
      if (entry.isDirectory()) await walk(rel);
      else if (entry.isFile()) out.push({ rel, kind: "file" });
      else if (entry.isSymbolicLink()) out.push({ rel, kind: "symlink" });
    }
  }
  await walk("");
  return out.sort((a, b) => (a.rel < b.rel ? -1 : 1));
}

/** A file of a tree as a bundle entry's header and body (its bytes streamed, its hash taken first). */
export async function fileEntry(options: { root: string; rel: BytePath; as: BytePath }) {
  const full = toFsPath(options.root, options.rel);
  const stat = await fsp.lstat(full);
  if (stat.isSymbolicLink()) {
    const target = await fsp.readlink(full, { encoding: "buffer" });
    return {
      header: { kind: "symlink" as const, path: encodePath(options.as), size: 0, target: target.toString("base64") },
    };
  }
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(full)) hash.update(chunk as Buffer);
  return {
    header: {
      kind: "file" as const,
      path: encodePath(options.as),
      mode: stat.mode & 0o111 ? "100755" : "100644",
      size: stat.size,
      sha256: hash.digest("hex"),
    },
    body: () => fs.createReadStream(full) as AsyncIterable<Buffer>,
  };
}
