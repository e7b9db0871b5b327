import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DevcontainerRefusal } from "./devcontainer-config";
import { CONTEXT_DOCKERFILE, packBuildContext, readDevcontainer } from "./devcontainer-source";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function project(files: Record<string, string>): string {
  const dir = temp("iw-devcontainer-source-");
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const BUILD = JSON.stringify({ build: { dockerfile: "Dockerfile", context: ".." } });

describe("devcontainer sources", () => {
  it("finds no file in a project without one", async () => {
    expect(await readDevcontainer(project({ "README.md": "x" }))).toBeNull();
  });

  it("packs the context without following symlinks, with our copy of the Dockerfile", async () => {
    const dir = project({
      ".devcontainer/devcontainer.json": BUILD,
      ".devcontainer/Dockerfile": "FROM invariant-base:bookworm\n",
      "src/app.js": "1",
      [CONTEXT_DOCKERFILE]: "planted",
    });
    fs.symlinkSync("/etc/hostname", path.join(dir, "leak"));
    const found = await readDevcontainer(dir);
    expect(found?.dockerfile?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const tar = await packBuildContext({
      projectDir: dir,
      found: found!,
      intoDir: temp("iw-ctx-"),
    });
    const listing = execFileSync("tar", ["-tvf", tar], { encoding: "utf8" });
    expect(listing).toMatch(/^l.* \.\/leak -> \/etc\/hostname$/m);
    expect(listing).toContain("./src/app.js");
    // the context's own file by our name is left out; ours is the Dockerfile that was read
    expect(listing.split("\n").filter((line) => line.includes(CONTEXT_DOCKERFILE))).toHaveLength(1);
    expect(execFileSync("tar", ["-xOf", tar, CONTEXT_DOCKERFILE], { encoding: "utf8" })).toBe(
      "FROM invariant-base:bookworm\n",
    );
  });

  it("refuses a devcontainer.json or Dockerfile that is a symlink out of the project, and a context over the limits", async () => {
    const outside = project({ Dockerfile: "FROM x\n" });
    const dir = project({ ".devcontainer/devcontainer.json": JSON.stringify({ build: { dockerfile: "Dockerfile" } }) });
    fs.symlinkSync(path.join(outside, "Dockerfile"), path.join(dir, ".devcontainer", "Dockerfile"));
    await expect(readDevcontainer(dir)).rejects.toThrow(/build.dockerfile .* is outside the project/);

    const linked = project({});
    fs.symlinkSync(path.join(outside, "Dockerfile"), path.join(linked, ".devcontainer.json"));
    await expect(readDevcontainer(linked)).rejects.toThrow(/\.devcontainer\.json .* is outside the project/);

    const big = project({
      ".devcontainer/devcontainer.json": BUILD,
      ".devcontainer/Dockerfile": "FROM x\n",
      "a.bin": "x".repeat(2048),
    });
    const found = await readDevcontainer(big);
    const packing = packBuildContext({
      projectDir: big,
      found: found!,
      intoDir: temp("iw-ctx-"),
      limits: { bytes: 1024, entries: 100 },
    });
    await expect(packing).rejects.toBeInstanceOf(DevcontainerRefusal);
    await expect(packing).rejects.toThrow(/build context is larger than/);
  });
});
