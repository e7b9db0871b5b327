import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { FileLockTimeoutError, withFileLock } from "./file-lock";

/** The host-wide lock around a project bridge's creation: one holder at a time, a dead holder's lock taken over. */
describe("a file lock", () => {
  it("lets one holder in at a time, across processes", async () => {
    const dir = tempDir("file-lock");
    // another process holds it for a second (O_EXCL, as withFileLock takes it)
    const file = path.join(dir, "key.lock");
    const holder = spawn(
      "node",
      [
        "-e",
        `const fs = require("fs"); fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify({ pid: process.pid, host: require("os").hostname(), token: "x", at: Date.now() }), { flag: "wx" }); setTimeout(() => fs.rmSync(${JSON.stringify(file)}), 1000);`,
      ],
      { stdio: "ignore" },
    );
    // until the other process holds it (a busy machine may take longer than any fixed pause to start node)
    for (const until = Date.now() + 20_000; !fs.existsSync(file) && Date.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    let inside = 0;
    let most = 0;
    const holders: string[] = [];
    await Promise.all(
      Array.from({ length: 3 }, () =>
        withFileLock(
          "key",
          async () => {
            holders.push((JSON.parse(fs.readFileSync(file, "utf8")) as { token: string }).token);
            most = Math.max(most, ++inside);
            await new Promise((resolve) => setTimeout(resolve, 50));
            inside--;
          },
          { dir },
        ),
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(600); // waited for the other process
    expect(holders).toHaveLength(3);
    expect(holders).not.toContain("x"); // the lock was each one's own, never the other process's
    expect(most).toBe(1);
    expect(fs.existsSync(file)).toBe(false);
    holder.kill();
  });

  it("takes over a lock whose holder died, and gives up on a live holder after waitMs", async () => {
    const dir = tempDir("file-lock-stale");
    const dead = spawnSync("node", ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const file = path.join(dir, "key.lock");
    const left = { pid: Number(dead.stdout), host: os.hostname(), token: "dead", at: Date.now() };
    fs.writeFileSync(file, JSON.stringify(left));
    expect(await withFileLock("key", () => Promise.resolve("ran"), { dir, waitMs: 5_000 })).toBe("ran");

    fs.writeFileSync(file, JSON.stringify({ ...left, pid: process.pid, token: "alive" }));
    await expect(withFileLock("key", () => Promise.resolve("ran"), { dir, waitMs: 300 })).rejects.toThrow(
      FileLockTimeoutError,
    );
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ token: "alive" });
  });
});
