import { describe, expect, it } from "vitest";
import { ChunkedBodyError, createChunkedBodyReader } from "./chunked-body";

/** Feeds `raw` split at the given offsets; returns what the reader forwarded and decoded. */
function feed(raw: Buffer, cuts: number[]) {
  const payload: Buffer[] = [];
  const forward: Buffer[] = [];
  const reader = createChunkedBodyReader((part) => payload.push(Buffer.from(part)));
  let done = false;
  let leftover = 0;
  let at = 0;
  for (const end of [...cuts, raw.length]) {
    // a fresh copy per read, overwritten afterwards: the reader must not keep references
    const chunk = Buffer.from(raw.subarray(at, end));
    const step = reader.push(chunk);
    forward.push(...step.forward.map((part) => Buffer.from(part)));
    chunk.fill(0x23);
    done ||= step.done;
    leftover += step.leftover;
    at = end;
    if (step.done) break;
  }
  return {
    payload: Buffer.concat(payload).toString("latin1"),
    forward: Buffer.concat(forward).toString("latin1"),
    done,
    leftover,
  };
}

const BODY = "5;ext=1\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nx-trailer: yes\r\n\r\n";
const FRAMED_WITHOUT_LAST = "5;ext=1\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n";

describe("chunked body reader", () => {
  it("decodes the payload and forwards the framing up to the last chunk, however the reads are split", () => {
    const raw = Buffer.from(BODY, "latin1");
    for (let a = 0; a <= raw.length; a++) {
      for (const b of [a, Math.min(raw.length, a + 1), Math.min(raw.length, a + 7)]) {
        const result = feed(raw, a === b ? [a] : [a, b]);
        expect(result, `cut at ${a}/${b}`).toEqual({
          payload: "helloabcdefghijklmnopqrstuvwxyz",
          forward: FRAMED_WITHOUT_LAST,
          done: true,
          leftover: 0,
        });
      }
    }
  });

  it("counts bytes after the end of the body (the connection is then not reused)", () => {
    expect(feed(Buffer.from("3\r\nabc\r\n0\r\n\r\nHTTP/1.1", "latin1"), [])).toMatchObject({ done: true, leftover: 8 });
  });

  it("is not done until the empty line after the last chunk", () => {
    expect(feed(Buffer.from("3\r\nabc\r\n0\r\n", "latin1"), [])).toMatchObject({
      done: false,
      forward: "3\r\nabc\r\n",
    });
  });

  it("refuses malformed framing with a reason", () => {
    const bad = ["zz\r\nab\r\n", "3\r\nabcX\r\n", "3\nabc\r\n", "ffffffffffffff\r\n", "\r\n", `${"1".repeat(5000)}`];
    for (const text of bad) {
      const reader = createChunkedBodyReader(() => undefined);
      expect(() => reader.push(Buffer.from(text, "latin1")), text.slice(0, 20)).toThrow(ChunkedBodyError);
    }
  });
});
