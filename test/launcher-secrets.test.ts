import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { childrenOf, launch, type Launched } from "./support/launch";
import { tempDir } from "./support/temp";

/**
 * Issue 15: what other users of the host can read. A process's command line (/proc/<pid>/cmdline,
 * `ps`) is world-readable; its environment is not. So neither the browser the launcher opens (item 3)
 * nor the worker child (item 8) gets a secret in its argv.
 */
const running: Launched[] = [];
afterAll(async () => {
  for (const app of running) await app.stop("SIGTERM");
});

function argvOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
}

describe("secrets stay out of command lines", () => {
  it("opens the browser on a one-time sign-in code, never the token URL", async () => {
    // a stand-in for xdg-open that records the arguments it was given
    const bin = tempDir("fake-xdg");
    const recorded = path.join(bin, "argv.txt");
    fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${recorded}'\n`, { mode: 0o755 });
    const app = await launch({
      dataDir: tempDir("launch"),
      open: true,
      env: { DISPLAY: ":99", PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    running.push(app);
    await expect.poll(() => fs.existsSync(recorded), { timeout: 10_000 }).toBe(true);
    const opened = fs.readFileSync(recorded, "utf8").trim();
    expect(opened).not.toContain(app.token);
    expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=c_[\w-]+$/);
    const first = await fetch(opened, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toMatch(/^invariant_session=s_/);
    expect(first.headers.get("set-cookie")).not.toContain(app.token);
    // the code works once: someone who read it afterwards gets nothing
    const second = await fetch(opened, { redirect: "manual" });
    expect(second.status).toBe(401);
    expect(second.headers.get("set-cookie")).toBeNull();
  });

  it("hands the worker child its Redis URL in the environment, not in argv", async () => {
    const app = await launch({ dataDir: tempDir("launch") });
    running.push(app);
    const worker = childrenOf(app.child.pid ?? -1).find((pid) => argvOf(pid).includes("worker"));
    expect(worker).toBeDefined();
    const argv = argvOf(worker ?? -1).join(" ");
    expect(argv).not.toContain("--redis-url");
    expect(argv).not.toMatch(/redis:\/\/|unix:\/\//);
    const environ = fs.readFileSync(`/proc/${worker}/environ`, "utf8").split("\0");
    expect(environ.some((entry) => entry.startsWith("REDIS_URL=unix://"))).toBe(true);
  });
});
