import { isUtf8 } from "node:buffer";
import fs from "node:fs/promises";
import { bytesOf, displayPath, quoteForPatch, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { NotRegularFileError, openRegularFile } from "../../../lib/files/file-read";
import { createYielder } from "../../../lib/files/yielder";
import { formatFilePatch, isBinary } from "../../core/diffs/unified-patch";
import type { FileChange, FileState } from "../../core/diffs/workspace-diff";
import { gitObjectId, streamPacked } from "../../core/snapshots/git-pack";
import type { GitMode } from "../../core/snapshots/manifest";
import { dataDirPaths } from "../../core/storage/data-dir";
import { REVIEW_TEXT_MAX_BYTES } from "../../../shared/review-schemas";
import { binaryLiteral } from "./binary-patch";
import type { ReviewDiff } from "./diff-cache";

/**
 * A whole trial as one git patch that `git apply` accepts on the snapshot and that reproduces the
 * workspace: UTF-8 text up to 1 MiB as unified hunks, anything else (binary, not UTF-8, bigger) as
 * git binary patches up to `maxBinaryBytes` a side. Files bigger than that are listed in the comment
 * at the top (git apply ignores text before the first `diff --git`) and left out.
 */
export const PATCH_MAX_BINARY_BYTES = 16 * 1024 * 1024;
const NULL_OID = "0".repeat(40);

interface Side {
  mode: GitMode;
  content: Buffer;
  oid: string;
}

function header(path: BytePath, before: Side | null, after: Side | null): string {
  let text = `diff --git ${quoteForPatch(`a/${path}`)} ${quoteForPatch(`b/${path}`)}\n`;
  if (!before && after) text += `new file mode ${after.mode}\n`;
  else if (before && !after) text += `deleted file mode ${before.mode}\n`;
  else if (before && after && before.mode !== after.mode) text += `old mode ${before.mode}\nnew mode ${after.mode}\n`;
  return text;
}

const needsBinary = (side: Side | null) =>
  side !== null && (isBinary(side.content) || !isUtf8(side.content) || side.content.length > REVIEW_TEXT_MAX_BYTES);

/** The patch of one path between two sides (of the same type). */
async function* filePatch(path: BytePath, before: Side | null, after: Side | null): AsyncGenerator<string> {
  const same = before && after && before.oid === after.oid;
  if (!same && (needsBinary(before) || needsBinary(after))) {
    yield `${header(path, before, after)}index ${before?.oid ?? NULL_OID}..${after?.oid ?? NULL_OID}\n`;
    yield* binaryLiteral(after?.content ?? Buffer.alloc(0));
    return;
  }
  const patch = formatFilePatch({
    path,
    before: before ? { mode: before.mode, content: before.content } : null,
    after: after ? { mode: after.mode, content: after.content } : null,
    maxBytes: Number.MAX_SAFE_INTEGER,
    maxTextBytes: Number.MAX_SAFE_INTEGER,
  });
  yield patch.text;
}

async function readAfter(root: string, path: BytePath, state: FileState): Promise<Side | null> {
  const fsPath = toFsPath(root, path);
  if (state.type === "symlink") {
    const target = await fs.readlink(fsPath, { encoding: "buffer" }).catch(() => null);
    return target ? { mode: "120000", content: target, oid: gitObjectId("blob", target) } : null;
  }
  try {
    const { handle, executable } = await openRegularFile(fsPath);
    try {
      const content = await handle.readFile();
      return { mode: executable ? "100755" : "100644", content, oid: gitObjectId("blob", content) };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFileError) return null;
    throw error;
  }
}

/** Paths left out of the patch because a side is over the limit. */
export function omittedChanges(changes: readonly FileChange[], maxBinaryBytes: number): FileChange[] {
  return changes.filter(
    (change) =>
      (change.before?.type === "file" && change.before.size > maxBinaryBytes) ||
      (change.after?.type === "file" && change.after.size > maxBinaryBytes),
  );
}

export async function* trialPatch(options: {
  dataDir: string;
  diff: ReviewDiff;
  /** Comment lines for the top (who, which trial); each is prefixed with "# ". */
  preamble: string[];
  maxBinaryBytes?: number;
}): AsyncGenerator<string> {
  const { diff } = options;
  const maxBinaryBytes = options.maxBinaryBytes ?? PATCH_MAX_BINARY_BYTES;
  const omitted = omittedChanges(diff.changes, maxBinaryBytes);
  const lines = [...options.preamble];
  if (omitted.length > 0) {
    lines.push(`Not included: ${omitted.length} file(s) over ${maxBinaryBytes.toLocaleString("en-US")} bytes:`);
    for (const change of omitted)
      lines.push(`  ${change.status} ${displayPath(change.path)} (${change.after?.size ?? change.before?.size} bytes)`);
  }
  yield `${lines.map((line) => `# ${line.replace(/\n/g, " ")}`).join("\n")}\n\n`;
  const skip = new Set(omitted);
  const { manifest } = diff;
  const pack = await fs.open(dataDirPaths(options.dataDir).snapshot(manifest.id).pack(manifest.pack), "r");
  const yielder = createYielder();
  try {
    for (const change of diff.changes) {
      if (skip.has(change)) continue;
      if (yielder.due()) await yielder.pause();
      const entry = diff.tracked.get(change.path);
      let before: Side | null = null;
      if (change.before && entry) {
        const chunks: Buffer[] = [];
        if (entry.type === "symlink") chunks.push(bytesOf(entry.target ?? ""));
        else for await (const chunk of streamPacked(pack, entry.offset, entry.size)) chunks.push(chunk);
        before = { mode: entry.mode, content: Buffer.concat(chunks), oid: entry.oid };
      }
      const after = change.after ? await readAfter(diff.root, change.path, change.after) : null;
      if (change.after && !after) {
        yield `# ${displayPath(change.path).replace(/\n/g, " ")}: left out, it changed while the patch was written\n`;
        continue;
      }
      if (before && after && (before.mode === "120000") !== (after.mode === "120000")) {
        // a file ↔ symlink change is a deletion and an addition, as git writes it
        yield* filePatch(change.path, before, null);
        yield* filePatch(change.path, null, after);
      } else yield* filePatch(change.path, before, after);
    }
  } finally {
    await pack.close();
  }
}
