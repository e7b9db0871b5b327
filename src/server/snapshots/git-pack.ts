import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

/**
 * Writes a git packfile (version 2) and its index (version 2) directly, so freezing a snapshot
 * costs one sequential file instead of one zlib-compressed loose object per file. Objects are
 * stored whole (no deltas) with zlib level 0: the pack is about the size of the content and writing
 * it is mostly a copy. Format: https://git-scm.com/docs/gitformat-pack
 */
export type GitObjectType = "commit" | "tree" | "blob";

const TYPE_NUMBER: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
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

export interface PackWriter {
  /** Appends an object unless the pack has it already; returns its id. Pass `oid` when it is known. */
  add(type: GitObjectType, data: Buffer, oid?: string): string;
  has(oid: string): boolean;
  /** Writes the trailer and the index; returns the pack's base name (pack-<sha1>). */
  finish(): string;
  /** Closes and deletes the partial pack. */
  abort(): void;
}

export function createPackWriter(options: { dir: string }): PackWriter {
  const tempPack = path.join(options.dir, "tmp-pack");
  const fd = fs.openSync(tempPack, "w+", 0o644);
  let closed = false;
  const objects: { oid: Buffer; offset: number; crc: number }[] = [];
  const seen = new Set<string>();
  let offset = 0;

  function write(buffer: Buffer): void {
    let written = 0;
    while (written < buffer.length) written += fs.writeSync(fd, buffer, written, buffer.length - written);
    offset += buffer.length;
  }

  // signature, version 2, object count (filled in by finish)
  write(Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0]));

  return {
    add(type, data, knownOid) {
      const oid = knownOid ?? gitObjectId(type, data);
      if (seen.has(oid)) return oid;
      seen.add(oid);
      const header = objectHeader(type, data.length);
      const body = zlib.deflateSync(data, { level: 0 });
      objects.push({ oid: Buffer.from(oid, "hex"), offset, crc: zlib.crc32(body, zlib.crc32(header)) });
      write(header);
      write(body);
      return oid;
    },
    has: (oid) => seen.has(oid),
    finish() {
      const count = Buffer.alloc(4);
      count.writeUInt32BE(objects.length);
      fs.writeSync(fd, count, 0, 4, 8);
      // the trailer is the SHA-1 of everything before it; read it back (from the page cache)
      const hash = createHash("sha1");
      const chunk = Buffer.allocUnsafe(CHUNK);
      for (let position = 0; position < offset; ) {
        const read = fs.readSync(fd, chunk, 0, Math.min(CHUNK, offset - position), position);
        if (read === 0) throw new Error("pack file shrank while being written");
        hash.update(chunk.subarray(0, read));
        position += read;
      }
      const checksum = hash.digest();
      write(checksum);
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
