import { isUtf8 } from "node:buffer";

/**
 * A path relative to a tree root, '/'-separated, held as a "byte string": every character is one
 * byte of the on-disk name (latin1 code units 0..255). Linux file names are bytes, not text, so a
 * name that is not valid UTF-8 survives a round trip only this way; plain JS string comparison of
 * byte strings is byte order, which is also git's order. Convert at the edges: `toFsPath` for fs
 * calls, `toPathText` for JSON, `displayPath` for messages.
 */
export type BytePath = string;

/** How a path travels in JSON: the UTF-8 text, plus the raw bytes (base64) when the name is not valid UTF-8. */
export interface PathText {
  path: string;
  pathBytes?: string;
}

export function bytesOf(rel: BytePath): Buffer {
  return Buffer.from(rel, "latin1");
}

export function fromBytes(bytes: Buffer): BytePath {
  return bytes.toString("latin1");
}

/** A byte path for an ordinary JS (UTF-16) string such as "src/a.ts". */
export function fromText(text: string): BytePath {
  return fromBytes(Buffer.from(text, "utf8"));
}

export function joinPath(parent: BytePath, name: BytePath): BytePath {
  return parent === "" ? name : `${parent}/${name}`;
}

export function parentOf(rel: BytePath): BytePath {
  const index = rel.lastIndexOf("/");
  return index < 0 ? "" : rel.slice(0, index);
}

export function baseName(rel: BytePath): BytePath {
  return rel.slice(rel.lastIndexOf("/") + 1);
}

/** Every proper ancestor directory of `rel`, outermost first: "a/b/c" → ["a", "a/b"]. */
export function ancestorsOf(rel: BytePath): BytePath[] {
  const parts = rel.split("/");
  const result: BytePath[] = [];
  for (let i = 1; i < parts.length; i++) result.push(parts.slice(0, i).join("/"));
  return result;
}

/** The absolute path for fs calls, as a Buffer so non-UTF-8 names reach the kernel unchanged. */
export function toFsPath(root: string, rel: BytePath): Buffer {
  const rootBytes = Buffer.from(root, "utf8");
  if (rel === "") return rootBytes;
  return Buffer.concat([rootBytes, Buffer.from("/"), bytesOf(rel)]);
}

/** Readable text for messages: the UTF-8 name, or the name with its non-ASCII bytes as \xNN when it is not valid UTF-8. */
export function displayPath(rel: BytePath): string {
  const bytes = bytesOf(rel);
  if (isUtf8(bytes)) return bytes.toString("utf8");
  let text = "";
  for (const byte of bytes)
    text += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`;
  return text;
}

/** True when every byte is below 0x80 (then the byte string is already the UTF-8 text). */
function isAscii(rel: BytePath): boolean {
  for (let i = 0; i < rel.length; i++) if (rel.charCodeAt(i) >= 0x80) return false;
  return true;
}

export function toPathText(rel: BytePath): PathText {
  if (isAscii(rel)) return { path: rel }; // the common case: ASCII bytes are the same text
  const bytes = bytesOf(rel);
  return isUtf8(bytes)
    ? { path: bytes.toString("utf8") }
    : { path: displayPath(rel), pathBytes: bytes.toString("base64") };
}

export function fromPathText(text: PathText): BytePath {
  if (text.pathBytes === undefined && isAscii(text.path)) return text.path;
  return text.pathBytes === undefined ? fromText(text.path) : fromBytes(Buffer.from(text.pathBytes, "base64"));
}

/**
 * Why a relative path is unsafe to join to a root, or null when it is safe: it must be non-empty,
 * relative, free of NUL bytes and of empty, "." and ".." segments.
 */
export function unsafePathReason(rel: BytePath): string | null {
  if (rel === "") return "the path is empty";
  if (rel.includes("\0")) return "the path contains a NUL byte";
  if (rel.startsWith("/")) return "the path is absolute";
  for (const segment of rel.split("/")) {
    if (segment === "") return "the path has an empty segment (// or a trailing /)";
    if (segment === "." || segment === "..") return `the path has a "${segment}" segment`;
  }
  return null;
}

const C_ESCAPES: Record<number, string> = {
  7: "\\a",
  8: "\\b",
  9: "\\t",
  10: "\\n",
  11: "\\v",
  12: "\\f",
  13: "\\r",
  34: '\\"',
  92: "\\\\",
};

/**
 * Quotes a path the way git does in patch headers: unchanged when it is plain, otherwise in double
 * quotes with C escapes, and octal escapes for control characters and bytes of non-UTF-8 names.
 */
export function quoteForPatch(rel: BytePath): string {
  const bytes = bytesOf(rel);
  const utf8 = isUtf8(bytes);
  let needsQuotes = false;
  let body = "";
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] ?? 0;
    const escape = C_ESCAPES[byte];
    if (escape) {
      body += escape;
      needsQuotes = true;
    } else if (byte < 0x20 || byte === 0x7f || (byte >= 0x80 && !utf8)) {
      body += `\\${byte.toString(8).padStart(3, "0")}`;
      needsQuotes = true;
    } else if (byte >= 0x80) {
      // a valid UTF-8 name stays readable: copy the whole character
      let end = i + 1;
      while (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end++;
      body += bytes.subarray(i, end).toString("utf8");
      i = end - 1;
    } else body += String.fromCharCode(byte);
  }
  return needsQuotes ? `"${body}"` : body;
}
