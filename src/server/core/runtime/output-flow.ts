import { StringDecoder } from "node:string_decoder";
import { Transform, Writable } from "node:stream";

/**
 * How much of one container's output the worker's event loop takes each second. Past it, reading the
 * container's stream pauses until the allowance is back: the back-pressure reaches Docker and then the
 * container's own writes, so one trial printing endlessly (`yes`) slows itself, not the worker or the
 * trials beside it. Far above what Codex prints (a few JSON lines a second) or a build log needs.
 */
export const OUTPUT_BYTES_PER_SECOND = 4 * 1024 * 1024;
/** Lines cost the event loop more than bytes (each is parsed, logged, maybe published): they are bounded too. */
export const OUTPUT_LINES_PER_SECOND = 10_000;
/** Output is handed on in pieces of at most this many bytes, so no single one blocks the loop for long. */
const MAX_PIECE_BYTES = 4 * 1024;
const FRAME_HEADER_BYTES = 8;

/**
 * Docker's multiplexed attach stream (8-byte frame headers: stream type, 3 zero bytes, a big-endian
 * length) to the frames' payloads, stdout and stderr alike, in pieces of at most MAX_PIECE_BYTES. A
 * transform, unlike dockerode's demuxStream, passes back-pressure on to the socket.
 */
export function frameDemuxer(): Transform {
  let buffered: Buffer = Buffer.alloc(0);
  let payloadLeft = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      while (buffered.length > 0) {
        if (payloadLeft === 0) {
          if (buffered.length < FRAME_HEADER_BYTES) break;
          payloadLeft = buffered.readUInt32BE(4);
          buffered = buffered.subarray(FRAME_HEADER_BYTES);
          continue;
        }
        const take = Math.min(payloadLeft, buffered.length, MAX_PIECE_BYTES);
        this.push(buffered.subarray(0, take));
        buffered = buffered.subarray(take);
        payloadLeft -= take;
      }
      done();
    },
  });
}

/** A token bucket of bytes and lines a second (at most one second's worth saved up): how long a piece must wait. */
export function outputAllowance(options: { bytesPerSecond: number; linesPerSecond: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  let bytes = options.bytesPerSecond;
  let lines = options.linesPerSecond;
  let at = now();
  return {
    /** Takes a piece's bytes and lines; returns the milliseconds to wait before the next piece. */
    charge(pieceBytes: number, pieceLines: number): number {
      const current = now();
      const seconds = Math.max(0, current - at) / 1000;
      at = current;
      bytes = Math.min(options.bytesPerSecond, bytes + seconds * options.bytesPerSecond) - pieceBytes;
      lines = Math.min(options.linesPerSecond, lines + seconds * options.linesPerSecond) - pieceLines;
      return Math.ceil(Math.max(0, -bytes / options.bytesPerSecond, -lines / options.linesPerSecond) * 1000);
    },
  };
}

function countLines(piece: Buffer): number {
  let lines = 0;
  for (let at = piece.indexOf(10); at !== -1; at = piece.indexOf(10, at + 1)) lines += 1;
  return lines;
}

/**
 * Hands each piece of output to `onText` as UTF-8 and holds the next one back while the piece's cost
 * is over the allowance (see OUTPUT_BYTES_PER_SECOND). `unbound()` lifts the allowance: a container
 * that ended has only what is in flight left, which is read at once.
 */
export function boundedTextSink(options: {
  onText: (text: string) => void;
  bytesPerSecond?: number;
  linesPerSecond?: number;
}): Writable & { unbound(): void } {
  const decoder = new StringDecoder("utf8");
  const allowance = outputAllowance({
    bytesPerSecond: options.bytesPerSecond ?? OUTPUT_BYTES_PER_SECOND,
    linesPerSecond: options.linesPerSecond ?? OUTPUT_LINES_PER_SECOND,
  });
  let bounded = true;
  let held: { timer: NodeJS.Timeout; resume: () => void } | null = null;
  const sink = new Writable({
    highWaterMark: MAX_PIECE_BYTES,
    write(piece: Buffer, _encoding, done) {
      const text = decoder.write(piece);
      if (text) options.onText(text);
      const waitMs = bounded ? allowance.charge(piece.length, countLines(piece)) : 0;
      // the next piece comes in a later turn of the loop at the earliest: timers and other I/O run between
      if (waitMs <= 0) return void setImmediate(done);
      held = { timer: setTimeout(() => ((held = null), done()), waitMs), resume: done };
    },
    final(done) {
      const rest = decoder.end();
      if (rest) options.onText(rest);
      done();
    },
  });
  return Object.assign(sink, {
    unbound() {
      bounded = false;
      if (!held) return;
      clearTimeout(held.timer);
      const { resume } = held;
      held = null;
      resume();
    },
  });
}
