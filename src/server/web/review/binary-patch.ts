import { promisify } from "node:util";
import zlib from "node:zlib";
import { createYielder } from "../../../lib/files/yielder";

/**
 * git's binary patch ("GIT binary patch", `literal` hunk): the new content, zlib-deflated, in git's
 * base85 with one length character per line of up to 52 bytes (git: diff.c emit_binary_diff_body,
 * base85.c). `git apply` needs the full blob ids on the `index` line to accept one; it checks the
 * preimage against the old id and the result against the new one.
 */
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
const LINE_BYTES = 52;
const deflate = promisify(zlib.deflate);

/** One base85 line (without its newline) for 1..52 bytes. */
export function base85Line(bytes: Buffer): string {
  const n = bytes.length;
  let line = n <= 26 ? String.fromCharCode(64 + n) : String.fromCharCode(96 + n - 26);
  for (let i = 0; i < n; i += 4) {
    let acc = 0;
    for (let j = 0; j < 4; j++) acc = acc * 256 + (i + j < n ? (bytes[i + j] ?? 0) : 0);
    const group = new Array<string>(5);
    for (let k = 4; k >= 0; k--) {
      group[k] = ALPHABET[acc % 85] ?? "0";
      acc = Math.floor(acc / 85);
    }
    line += group.join("");
  }
  return line;
}

/**
 * The "GIT binary patch" section that turns any preimage into `content` (a literal hunk), as chunks
 * of text. Deflating runs on the thread pool; encoding yields to the event loop now and then.
 */
export async function* binaryLiteral(content: Buffer): AsyncGenerator<string> {
  const deflated = await deflate(content);
  const yielder = createYielder();
  yield `GIT binary patch\nliteral ${content.length}\n`;
  let text = "";
  for (let at = 0; at < deflated.length; at += LINE_BYTES) {
    text += `${base85Line(deflated.subarray(at, at + LINE_BYTES))}\n`;
    if (text.length >= 64 * 1024) {
      yield text;
      text = "";
      if (yielder.due()) await yielder.pause();
    }
  }
  yield `${text}\n`;
}
