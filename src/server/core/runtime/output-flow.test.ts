import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { boundedTextSink, frameDemuxer, outputAllowance } from "./output-flow";

/** One frame of Docker's multiplexed stream: type (1 stdout, 2 stderr), three zero bytes, the length. */
function frame(type: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

async function demuxed(chunks: Buffer[]): Promise<string> {
  const input = new PassThrough();
  let text = "";
  const sink = boundedTextSink({ onText: (piece) => (text += piece) });
  const finished = new Promise<void>((resolve) => sink.once("finish", () => resolve()));
  input.pipe(frameDemuxer()).pipe(sink);
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await finished;
  return text;
}

describe("frameDemuxer", () => {
  it("passes stdout and stderr payloads on in order, however the frames are split", async () => {
    const stream = Buffer.concat([frame(1, "out one\n"), frame(2, "err ✓\n"), frame(1, "out two")]);
    expect(await demuxed([stream])).toBe("out one\nerr ✓\nout two");
    // split at every byte: headers and a multi-byte character cut in two
    expect(await demuxed([...stream].map((byte) => Buffer.from([byte])))).toBe("out one\nerr ✓\nout two");
  });

  it("hands a big payload on in pieces of at most 4 KiB", async () => {
    const pieces: number[] = [];
    const demuxer = frameDemuxer();
    demuxer.on("data", (piece: Buffer) => pieces.push(piece.length));
    const ended = new Promise<void>((resolve) => demuxer.once("end", () => resolve()));
    demuxer.end(frame(1, "y\n".repeat(40_000)));
    await ended;
    expect(pieces.reduce((sum, length) => sum + length, 0)).toBe(80_000);
    expect(Math.max(...pieces)).toBe(4 * 1024);
  });
});

describe("outputAllowance", () => {
  it("lets a second's worth through at once, then holds pieces back by what they cost in bytes or lines", () => {
    let now = 1_000;
    const allowance = outputAllowance({ bytesPerSecond: 1000, linesPerSecond: 10, now: () => now });
    expect(allowance.charge(500, 1)).toBe(0);
    expect(allowance.charge(500, 1)).toBe(0);
    expect(allowance.charge(250, 0)).toBe(250); // 250 bytes over: a quarter of a second
    now += 250;
    expect(allowance.charge(0, 0)).toBe(0);
    expect(allowance.charge(10, 20)).toBe(1000); // lines: 10 over the 10 saved up (bytes: only 10 over)
  });

  it("saves up at most one second's worth while nothing is printed", () => {
    let now = 0;
    const allowance = outputAllowance({ bytesPerSecond: 1000, linesPerSecond: 1000, now: () => now });
    now += 60_000;
    expect(allowance.charge(3000, 0)).toBe(2000);
  });
});
