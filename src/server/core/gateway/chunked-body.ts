/**
 * An incremental reader for an HTTP/1.1 chunked body (RFC 9112 §7.1), made for a relay: besides the
 * decoded payload (for metering) it says which received bytes can be passed on as they are. The
 * relay forwards the upstream's own framing byte for byte, up to but not including the last chunk
 * (`0\r\n` and any trailers): the client-facing response ends itself. A size line split across reads
 * is held back (copied) until it is complete, so the last chunk is never forwarded by accident. No
 * reference to a pushed chunk is kept, except through `forward` and the payload callback.
 */
export class ChunkedBodyError extends Error {}

export interface ChunkedStep {
  /** Received bytes, still chunk-framed, to pass on in order (complete chunks, or parts of one). */
  forward: Buffer[];
  /** True once the last chunk and its trailers have been read. */
  done: boolean;
  /** Bytes after the end of the body: a well-behaved server sends none. */
  leftover: number;
}

const CR = 0x0d;
const LF = 0x0a;
const MAX_LINE = 4096;
const MAX_TRAILERS = 64 * 1024;
const HEX_SIZE = /^[0-9a-fA-F]{1,13}$/; // 13 hex digits stay below 2^53

/** An incomplete line (a size line, or a trailer line) held back until its end arrives. */
class HeldLine {
  private parts: Buffer[] = [];
  private length = 0;

  /** The complete line, from what is held and the chunk's bytes up to `newline`, without its CRLF. */
  take(chunk: Buffer, from: number, newline: number): string {
    const tail = chunk.subarray(from, newline);
    const line = this.length > 0 ? Buffer.concat([...this.parts, tail]) : tail;
    if (line.length === 0 || line[line.length - 1] !== CR)
      throw new ChunkedBodyError("a chunk line does not end in CRLF");
    return line.toString("latin1", 0, line.length - 1);
  }

  hold(chunk: Buffer, from: number, limit: number, what: string): void {
    this.parts.push(Buffer.from(chunk.subarray(from))); // a copy: the caller may reuse chunk's memory
    this.length += chunk.length - from;
    if (this.length > limit) throw new ChunkedBodyError(`${what} is too long`);
  }

  release(): Buffer[] {
    const parts = this.parts;
    this.parts = [];
    this.length = 0;
    return parts;
  }
}

export type ChunkedBodyReader = ReturnType<typeof createChunkedBodyReader>;

export function createChunkedBodyReader(onPayload: (payload: Buffer) => void) {
  let state: "size" | "data" | "data-cr" | "data-lf" | "trailer" | "done" = "size";
  let remaining = 0;
  const held = new HeldLine();
  let trailerBytes = 0;

  return {
    push(chunk: Buffer): ChunkedStep {
      const forward: Buffer[] = [];
      let from = 0; // start of this chunk's bytes not yet given to `forward`
      let pos = 0;
      while (pos < chunk.length && state !== "done") {
        if (state === "data") {
          const take = Math.min(remaining, chunk.length - pos);
          onPayload(chunk.subarray(pos, pos + take));
          remaining -= take;
          pos += take;
          if (remaining === 0) state = "data-cr";
        } else if (state === "data-cr" || state === "data-lf") {
          if (chunk[pos] !== (state === "data-cr" ? CR : LF))
            throw new ChunkedBodyError("chunk data is not followed by CRLF");
          state = state === "data-cr" ? "data-lf" : "size";
          pos++;
        } else if (state === "size") {
          const newline = chunk.indexOf(LF, pos);
          if (newline === -1) {
            if (pos > from) forward.push(chunk.subarray(from, pos));
            held.hold(chunk, pos, MAX_LINE, "a chunk size line");
            return { forward, done: false, leftover: 0 };
          }
          const line = held.take(chunk, pos, newline);
          const sizeText = line.split(";", 1)[0]!.trim();
          if (!HEX_SIZE.test(sizeText))
            throw new ChunkedBodyError(`invalid chunk size ${JSON.stringify(sizeText.slice(0, 20))}`);
          const size = Number.parseInt(sizeText, 16);
          const heldParts = held.release();
          if (size === 0) {
            if (pos > from) forward.push(chunk.subarray(from, pos));
            from = -1; // nothing after the last chunk's size line is forwarded
            state = "trailer";
          } else {
            if (heldParts.length > 0) forward.push(...heldParts); // the line began in an earlier read: from is 0 here
            state = "data";
            remaining = size;
          }
          pos = newline + 1;
        } else {
          // trailer section: lines until an empty one
          const newline = chunk.indexOf(LF, pos);
          if (newline === -1) {
            held.hold(chunk, pos, MAX_LINE, "a trailer line");
            return { forward, done: false, leftover: 0 };
          }
          const line = held.take(chunk, pos, newline);
          held.release();
          trailerBytes += line.length + 2;
          if (trailerBytes > MAX_TRAILERS) throw new ChunkedBodyError("the trailers are too long");
          pos = newline + 1;
          if (line.length === 0) state = "done";
        }
      }
      if (from !== -1 && state !== "trailer" && state !== "done" && chunk.length > from)
        forward.push(chunk.subarray(from));
      return { forward, done: state === "done", leftover: state === "done" ? chunk.length - pos : 0 };
    },
    get done(): boolean {
      return state === "done";
    },
  };
}
