import { createHash } from "node:crypto";
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";

/**
 * A git packfile (version 2) and its index (version 2), written directly. It is the snapshot's one
 * content store: every object is stored whole (no deltas) in zlib "stored" blocks — no compression —
 * so a file's bytes sit in the pack at a known offset, in runs of at most 65,535 bytes separated by
 * 5-byte block headers. Workspaces and diffs read file content straight out of it (readPacked),
 * and git reads the same pack as a normal repository.
 * Formats: https://git-scm.com/docs/gitformat-pack, RFC 1950 (zlib), RFC 1951 §3.2.4 (stored blocks).
 */
export type GitObjectType = "commit" | "tree" | "blob";

const TYPE_NUMBER: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
const BLOCK = 65535;
const BLOCK_HEADER = 5;
const ZLIB_HEADER = Buffer.from([0x78, 0x01]); // deflate, 32K window, no preset dictionary, level "fastest"
const WRITE_BUFFER = 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;

/** The git object id (SHA-1) of `data` as an object of `type`. */
export function gitObjectId(type: GitObjectType, data: Buffer): string {
  return createHash("sha1").update(`${type} ${data.length}\0`).update(data).digest("hex");
}

function objectHeader(type: GitObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (TYPE_NUMBER[type] << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest % 128;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** Adler-32 (RFC 1950), unrolled: indexes are in range, hence the non-null assertions. */
function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  const n = data.length;
  for (let i = 0; i < n;) {
    const end = Math.min(i + 5552, n); // the most bytes before the sums can overflow 2^32
    for (; i + 8 <= end; i += 8) {
      a += data[i]!;
      b += a;
      a += data[i + 1]!;
      b += a;
      a += data[i + 2]!;
      b += a;
      a += data[i + 3]!;
      b += a;
      a += data[i + 4]!;
      b += a;
      a += data[i + 5]!;
      b += a;
      a += data[i + 6]!;
      b += a;
      a += data[i + 7]!;
      b += a;
    }
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Bytes a stored zlib stream of `size` content bytes spans between its first and last content byte. */
function packedSpan(size: number): number {
  return size + BLOCK_HEADER * Math.max(0, Math.ceil(size / BLOCK) - 1);
}

/** Reads the content of an object written by PackWriter, from its content offset. */
export function readPacked(fd: number, offset: number, size: number): Buffer {
  const span = packedSpan(size);
  const raw = Buffer.allocUnsafe(span);
  for (let read = 0; read < span;) {
    const n = fs.readSync(fd, raw, read, span - read, offset + read);
    if (n === 0) throw new Error("the snapshot's pack is shorter than its manifest says");
    read += n;
  }
  if (size <= BLOCK) return raw;
  const content = Buffer.allocUnsafe(size);
  for (let from = 0, to = 0; to < size; from += BLOCK + BLOCK_HEADER, to += BLOCK)
    raw.copy(content, to, from, from + Math.min(BLOCK, size - to));
  return content;
}

/** The same content as readPacked, as chunks of at most one block, read asynchronously (for big files). */
export async function* streamPacked(handle: FileHandle, offset: number, size: number): AsyncGenerator<Buffer> {
  for (let from = offset, done = 0; done < size; from += BLOCK + BLOCK_HEADER) {
    const length = Math.min(BLOCK, size - done);
    const chunk = Buffer.allocUnsafe(length);
    for (let read = 0; read < length;) {
      const { bytesRead } = await handle.read(chunk, read, length - read, from + read);
      if (bytesRead === 0) throw new Error("the snapshot's pack is shorter than its manifest says");
      read += bytesRead;
    }
    done += length;
    yield chunk;
  }
}

export interface PackedObject {
  oid: string;
  /** Offset of the first content byte in the pack. */
  offset: number;
}

export interface PackWriter {
  /** Appends an object unless the pack has it already. Pass `oid` when it is known. */
  add(type: GitObjectType, data: Buffer, oid?: string): PackedObject;
  /** Writes the trailer and the index; returns the pack's base name (pack-<sha1>). */
  finish(): string;
  /** Closes and deletes the partial pack. */
  abort(): void;
}

interface Appender {
  append(bytes: Buffer): void;
  /** Writes what is buffered. */
  flush(): void;
  /** Bytes appended so far, buffered or not. */
  readonly offset: number;
}

/** Appends to `fd` through a buffer of WRITE_BUFFER bytes (larger pieces are written directly). */
function openAppender(fd: number): Appender {
  const pending = Buffer.allocUnsafe(WRITE_BUFFER);
  let pendingLength = 0;
  let offset = 0;
  const flush = () => {
    for (let written = 0; written < pendingLength;)
      written += fs.writeSync(fd, pending, written, pendingLength - written);
    pendingLength = 0;
  };
  return {
    append(bytes) {
      if (pendingLength + bytes.length > WRITE_BUFFER) flush();
      if (bytes.length > WRITE_BUFFER) {
        for (let written = 0; written < bytes.length;)
          written += fs.writeSync(fd, bytes, written, bytes.length - written);
      } else {
        bytes.copy(pending, pendingLength);
        pendingLength += bytes.length;
      }
      offset += bytes.length;
    },
    flush,
    get offset() {
      return offset;
    },
  };
}

/**
 * One object: its pack header, then the content as zlib "stored" blocks (uncompressed, so it can be
 * read in place), then the adler32 trailer. Returns the entry's CRC32 and where the content starts.
 */
function appendStoredObject(options: { out: Appender; type: GitObjectType; data: Buffer }): {
  crc: number;
  contentOffset: number;
} {
  const { out, type, data } = options;
  const header = objectHeader(type, data.length);
  let crc = zlib.crc32(header);
  out.append(header);
  crc = zlib.crc32(ZLIB_HEADER, crc);
  out.append(ZLIB_HEADER);
  const contentOffset = out.offset + BLOCK_HEADER;
  for (let at = 0; ; at += BLOCK) {
    const length = Math.min(BLOCK, data.length - at);
    const final = at + length >= data.length;
    const blockHeader = Buffer.from([final ? 1 : 0, length & 0xff, length >> 8, ~length & 0xff, (~length >> 8) & 0xff]);
    const chunk = data.subarray(at, at + length);
    crc = zlib.crc32(blockHeader, crc);
    // zlib's crc32 of an empty buffer may be handed a null pointer, which means "start over": skip it
    if (chunk.length > 0) crc = zlib.crc32(chunk, crc);
    out.append(blockHeader);
    out.append(chunk);
    if (final) break;
  }
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler32(data));
  crc = zlib.crc32(trailer, crc);
  out.append(trailer);
  return { crc, contentOffset };
}

/** SHA-1 of the first `length` bytes of `fd`, read back (from the page cache). */
function sha1OfFile(fd: number, length: number): Buffer {
  const hash = createHash("sha1");
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; position < length;) {
    const read = fs.readSync(fd, chunk, 0, Math.min(CHUNK, length - position), position);
    if (read === 0) throw new Error("pack file shrank while being written");
    hash.update(chunk.subarray(0, read));
    position += read;
  }
  return hash.digest();
}

export function createPackWriter(options: { dir: string }): PackWriter {
  const tempPack = path.join(options.dir, "tmp-pack");
  const fd = fs.openSync(tempPack, "w+", 0o644);
  let closed = false;
  const objects: { oid: Buffer; offset: number; crc: number }[] = [];
  const seen = new Map<string, PackedObject>();
  const out = openAppender(fd);

  // signature, version 2, object count (filled in by finish)
  out.append(Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0]));

  return {
    add(type, data, knownOid) {
      const oid = knownOid ?? gitObjectId(type, data);
      const existing = seen.get(oid);
      if (existing) return existing;
      const start = out.offset;
      const { crc, contentOffset } = appendStoredObject({ out, type, data });
      objects.push({ oid: Buffer.from(oid, "hex"), offset: start, crc });
      const packed = { oid, offset: contentOffset };
      seen.set(oid, packed);
      return packed;
    },
    finish() {
      out.flush();
      const count = Buffer.alloc(4);
      count.writeUInt32BE(objects.length);
      fs.writeSync(fd, count, 0, 4, 8);
      // the trailer is the SHA-1 of everything before it
      const checksum = sha1OfFile(fd, out.offset);
      out.append(checksum);
      out.flush();
      fs.closeSync(fd);
      closed = true;
      const name = `pack-${checksum.toString("hex")}`;
      fs.writeFileSync(path.join(options.dir, `${name}.idx`), packIndex(objects, checksum), { mode: 0o444 });
      fs.renameSync(tempPack, path.join(options.dir, `${name}.pack`));
      fs.chmodSync(path.join(options.dir, `${name}.pack`), 0o444);
      return name;
    },
    abort() {
      if (!closed) fs.closeSync(fd);
      closed = true;
      fs.rmSync(tempPack, { force: true });
    },
  };
}

/** Pack index version 2: fan-out table, sorted ids, CRC32s, 31-bit offsets (+ 64-bit table), checksums. */
function packIndex(objects: { oid: Buffer; offset: number; crc: number }[], packChecksum: Buffer): Buffer {
  const sorted = [...objects].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const n = sorted.length;
  const large = sorted.filter((object) => object.offset >= 0x80000000);
  const index = Buffer.alloc(8 + 256 * 4 + n * 20 + n * 4 + n * 4 + large.length * 8 + 20);
  let at = 0;
  index.writeUInt32BE(0xff744f63, at);
  index.writeUInt32BE(2, at + 4);
  at += 8;
  const fanout = new Uint32Array(256);
  for (const object of sorted) {
    const first = object.oid[0] ?? 0;
    fanout[first] = (fanout[first] ?? 0) + 1;
  }
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += fanout[i] ?? 0;
    index.writeUInt32BE(running, at);
    at += 4;
  }
  for (const object of sorted) at += object.oid.copy(index, at);
  for (const object of sorted) {
    index.writeUInt32BE(object.crc >>> 0, at);
    at += 4;
  }
  let largeIndex = 0;
  for (const object of sorted) {
    index.writeUInt32BE(object.offset >= 0x80000000 ? (0x80000000 | largeIndex++) >>> 0 : object.offset, at);
    at += 4;
  }
  for (const object of large) {
    index.writeBigUInt64BE(BigInt(object.offset), at);
    at += 8;
  }
  at += packChecksum.copy(index, at);
  const body = index.subarray(0, at);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}
