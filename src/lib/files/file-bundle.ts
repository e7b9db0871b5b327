import { createHash } from "node:crypto";

/**
 * A stream of named entries (files, symlinks, deletions), for moving sets of files over one HTTP body
 * without a temporary archive: each record is a 4-byte big-endian header length, the header (JSON), then
 * `size` bytes of content; a header length of 0 ends the bundle. Paths travel as base64 of their bytes
 * (Linux names need not be UTF-8) and every file's content carries its sha256, checked as it is read.
 */
export interface BundleHeader {
  kind: "file" | "symlink" | "delete";
  /** base64 of the path's bytes, relative, '/'-separated. */
  path: string;
  /** "100644" or "100755" for files. */
  mode?: string;
  size: number;
  sha256?: string;
  /** base64 of a symlink's target bytes. */
  target?: string;
}

export interface BundleEntry {
  header: BundleHeader;
  /** The content of a file (read once, in order). */
  body?: () => AsyncIterable<Buffer> | Buffer;
}

const MAX_HEADER_BYTES = 64 * 1024;

function frame(header: BundleHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json]);
}

/** The bundle's bytes, entry by entry (pipe through Readable.from). */
export async function* writeBundle(
  entries: AsyncIterable<BundleEntry> | Iterable<BundleEntry>,
): AsyncGenerator<Buffer> {
  for await (const entry of entries) {
    yield frame(entry.header);
    if (entry.header.size === 0 || !entry.body) continue;
    const body = entry.body();
    if (Buffer.isBuffer(body)) yield body;
    else for await (const chunk of body) yield chunk;
  }
  yield Buffer.alloc(4);
}

/** Pulls exact byte counts from a chunked source. */
function byteReader(source: AsyncIterable<Buffer | Uint8Array | string>) {
  const iterator = source[Symbol.asyncIterator]();
  let pending = Buffer.alloc(0);
  async function more(): Promise<boolean> {
    const next = await iterator.next();
    if (next.done) return false;
    const chunk = typeof next.value === "string" ? Buffer.from(next.value) : Buffer.from(next.value);
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    return true;
  }
  return {
    async exact(count: number): Promise<Buffer> {
      while (pending.length < count)
        if (!(await more())) throw new Error("The bundle ended in the middle of an entry.");
      const out = pending.subarray(0, count);
      pending = pending.subarray(count);
      return out;
    },
    async *stream(count: number): AsyncGenerator<Buffer> {
      let left = count;
      while (left > 0) {
        if (pending.length === 0 && !(await more())) throw new Error("The bundle ended in the middle of a file.");
        const take = pending.subarray(0, Math.min(left, pending.length));
        pending = pending.subarray(take.length);
        left -= take.length;
        yield take;
      }
    },
  };
}

const headerShape = (value: unknown): value is BundleHeader => {
  const h = value as Partial<BundleHeader> | null;
  return (
    typeof h === "object" &&
    h !== null &&
    (h.kind === "file" || h.kind === "symlink" || h.kind === "delete") &&
    typeof h.path === "string" &&
    Number.isSafeInteger(h.size) &&
    (h.size ?? -1) >= 0
  );
};

/**
 * Reads a bundle: `onEntry` gets each header and its content (which it must consume before returning).
 * A file whose bytes do not match its sha256 fails the read after its last chunk.
 */
export async function readBundle(options: {
  source: AsyncIterable<Buffer | Uint8Array | string>;
  onEntry: (header: BundleHeader, body: AsyncIterable<Buffer>) => Promise<void>;
  maxEntries?: number;
}): Promise<number> {
  const reader = byteReader(options.source);
  let count = 0;
  for (;;) {
    const length = (await reader.exact(4)).readUInt32BE(0);
    if (length === 0) return count;
    if (length > MAX_HEADER_BYTES) throw new Error(`A bundle header of ${length} bytes is too large.`);
    const parsed: unknown = JSON.parse((await reader.exact(length)).toString("utf8"));
    if (!headerShape(parsed)) throw new Error("A bundle entry has a malformed header.");
    const header = parsed;
    if (++count > (options.maxEntries ?? 1_000_000)) throw new Error("The bundle has too many entries.");
    const hash = createHash("sha256");
    let consumed = 0;
    async function* body(): AsyncGenerator<Buffer> {
      for await (const chunk of reader.stream(header.size)) {
        hash.update(chunk);
        consumed += chunk.length;
        yield chunk;
      }
    }
    await options.onEntry(header, body());
    if (consumed !== header.size) for await (const _ of reader.stream(header.size - consumed)) void _;
    if (header.kind === "file" && header.sha256 && consumed === header.size && hash.digest("hex") !== header.sha256)
      throw new Error(`The content of a bundled file does not match its sha256 (${header.sha256.slice(0, 12)}…).`);
  }
}
