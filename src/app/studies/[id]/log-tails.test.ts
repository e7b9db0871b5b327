import { describe, expect, it } from "vitest";
import { LOG_TAIL_CHARS, LogTails } from "./log-tails";

describe("LogTails", () => {
  it("keeps the current attempt's last 64 KiB and notifies only that trial's listeners", () => {
    const tails = new LogTails();
    let heard = 0;
    tails.subscribe("a", () => (heard += 1));
    tails.append("a", 1, "x".repeat(LOG_TAIL_CHARS));
    const before = tails.snapshot("a");
    tails.append("a", 1, "tail");
    tails.append("b", 1, "other");
    const after = tails.snapshot("a");
    expect(after).not.toBe(before);
    expect(after.chunks.map((chunk) => chunk.text)).toEqual(["tail"]);
    expect(heard).toBe(2);
    expect(tails.snapshot("a")).toBe(after);
  });

  it("starts over for a new attempt and ignores late chunks of an older one", () => {
    const tails = new LogTails();
    tails.append("a", 1, "one");
    tails.append("a", 2, "two");
    tails.append("a", 1, "late");
    expect(tails.snapshot("a")).toMatchObject({ attempt: 2, chunks: [{ text: "two" }] });
    expect(tails.currentSeq()).toBe(2);
  });
});
