import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { MAX_TRIAL_LOG_BYTES, openTrialLog } from "./trial-log";

/** Issue 15 item 5: a test command printing endlessly (`yes`) wrote 396 MB of trial log in 10 s. */
describe("the trial log", () => {
  it("stops output at its limit with a marker and publishes a bounded tail", async () => {
    const file = path.join(tempDir("trial-log"), "trial.log");
    const published: string[] = [];
    const log = openTrialLog({ file, publish: (text) => Promise.resolve(published.push(text)), intervalMs: 10 });
    const chunk = "y\n".repeat(32 * 1024); // 64 KiB, as a container's output arrives
    for (let written = 0; written < MAX_TRIAL_LOG_BYTES + 16 * 1024 * 1024; written += chunk.length) log.write(chunk);
    await log.close();

    const size = fs.statSync(file).size;
    expect(size).toBeLessThan(MAX_TRIAL_LOG_BYTES + 4096);
    const end = fs.readFileSync(file, "utf8").slice(-600);
    expect(end).toContain("this log reached its limit of 32 MiB; further output is left out");
    expect(end).toMatch(/\[invariant-web: 16777216 bytes of output were left out of this log\]/);
    const publishedChars = published.reduce((sum, text) => sum + text.length, 0);
    expect(publishedChars).toBeLessThan(published.length * (16 * 1024 + 100));
  });

  it("still takes the product's notes (the outcome line) once output filled it", async () => {
    const file = path.join(tempDir("trial-log"), "trial.log");
    const log = openTrialLog({ file, publish: () => Promise.resolve(), maxBytes: 1000 });
    log.write("x".repeat(5000));
    log.write("more output\n");
    log.writeNote("[12:00:00] Trial failed: 0/1 passed\n");
    await log.close();
    const text = fs.readFileSync(file, "utf8");
    expect(text.startsWith("x".repeat(1000))).toBe(true);
    expect(text).not.toContain("more output");
    expect(text).toContain("[12:00:00] Trial failed: 0/1 passed\n");
    expect(text.length).toBeLessThan(1300);
  });

  it("keeps a log under its limit whole, byte for byte", async () => {
    const file = path.join(tempDir("trial-log"), "trial.log");
    const log = openTrialLog({ file, publish: () => Promise.resolve(), maxBytes: 1000 });
    log.write("héllo\n");
    log.writeNote("[00:00:01] step\n");
    await log.close();
    expect(fs.readFileSync(file, "utf8")).toBe("héllo\n[00:00:01] step\n");
  });
});
