import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withoutRootLifecycle } from "./root-lifecycle";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A project with only its manifests (as a dependency step sees it): its prepare needs sources that are not there. */
function project(): { dir: string; manifest: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "root-lifecycle-"));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, "native"));
  fs.writeFileSync(
    path.join(dir, "native", "package.json"),
    JSON.stringify({
      name: "native",
      version: "1.0.0",
      scripts: { install: "node -e \"require('fs').writeFileSync('built.txt', 'built')\"" },
    }),
  );
  const manifest = `${JSON.stringify(
    {
      name: "app",
      version: "1.0.0",
      scripts: { prepare: "tsc --build && exit 7", postinstall: "exit 8", test: "node --test" },
      dependencies: { native: "file:./native" },
    },
    null,
    4,
  )}\n`;
  fs.writeFileSync(path.join(dir, "package.json"), manifest);
  return { dir, manifest };
}

function run(dir: string, command: string) {
  return spawnSync("sh", ["-c", `set -eu\n${withoutRootLifecycle(command)}`], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" },
  });
}

describe("the dependency step holds back the root project's lifecycle scripts", () => {
  it("installs a project whose prepare needs its sources; dependencies' install scripts still run", () => {
    const { dir, manifest } = project();
    const plain = spawnSync("sh", ["-c", "npm install --no-package-lock"], { cwd: dir, encoding: "utf8" });
    expect(plain.status).not.toBe(0); // what the step did before: the root's own scripts fail without sources

    fs.rmSync(path.join(dir, "node_modules"), { recursive: true, force: true });
    const held = run(dir, "npm install --no-package-lock");
    expect(held.stderr).not.toMatch(/exit [78]/);
    expect(held.status).toBe(0);
    expect(held.stdout).toContain("holding back the project's own postinstall, prepare scripts");
    expect(fs.readFileSync(path.join(dir, "node_modules", "native", "built.txt"), "utf8")).toBe("built");
    expect(fs.readFileSync(path.join(dir, "package.json"), "utf8")).toBe(manifest);
  });

  it("puts package.json back byte for byte when the command fails", () => {
    const { dir, manifest } = project();
    const failed = run(dir, "exit 5");
    expect(failed.status).toBe(5);
    expect(fs.readFileSync(path.join(dir, "package.json"), "utf8")).toBe(manifest);
  });

  it("runs the command as it is without a package.json", () => {
    const { dir } = project();
    fs.rmSync(path.join(dir, "package.json"));
    const result = run(dir, "echo ran");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("ran\n");
  });
});
