import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { createPackWriter, gitObjectId, readPacked } from "./git-pack";

describe("the pack writer", () => {
  it("writes packs git verifies, with content readable in place at every size", () => {
    const dir = tempDir("pack");
    const writer = createPackWriter({ dir });
    // empty, tiny, exactly one stored block, one byte over, several blocks
    const contents = [Buffer.alloc(0), Buffer.from("x"), randomBytes(65535), randomBytes(65536), randomBytes(300_000)];
    const packed = contents.map((data) => writer.add("blob", data));
    expect(writer.add("blob", Buffer.from("x"))).toEqual(packed[1]); // stored once
    const name = writer.finish();
    expect(packed.map((object) => object.oid)).toEqual(contents.map((data) => gitObjectId("blob", data)));

    const verify = execFileSync("git", ["verify-pack", "-v", path.join(dir, `${name}.idx`)], { encoding: "utf8" });
    expect(verify).toContain("non delta: 5 objects");
    for (const object of packed) expect(verify).toContain(object.oid);

    const fd = fs.openSync(path.join(dir, `${name}.pack`), "r");
    contents.forEach((data, index) =>
      expect(readPacked(fd, packed[index]?.offset ?? -1, data.length).equals(data)).toBe(true),
    );
    fs.closeSync(fd);
    expect(fs.readdirSync(dir).sort()).toEqual([`${name}.idx`, `${name}.pack`]);
  });

  it("leaves nothing behind when aborted", () => {
    const dir = tempDir("pack");
    const writer = createPackWriter({ dir });
    writer.add("blob", Buffer.from("partial"));
    writer.abort();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
