import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../../../../test/support/temp";
import { agentInstalls, stagePackageFiles } from "./package-files";

/** A package folder with the two gateway bridges and a stand-in Codex binary. */
function fakePackage(bridge = "print 1;\n") {
  const root = tempDir("package-files-pkg");
  fs.mkdirSync(path.join(root, "assets"));
  fs.writeFileSync(path.join(root, "assets", "gateway-bridge.pl"), bridge);
  fs.writeFileSync(path.join(root, "assets", "gateway-bridge.cjs"), "// bridge\n");
  fs.writeFileSync(path.join(root, "assets", "heartbeat-thread.mjs"), "// not for containers\n");
  const binary = path.join(root, "codex");
  fs.writeFileSync(binary, "#!/bin/sh\necho codex\n", { mode: 0o755 });
  return { root, codex: { path: binary, version: "0.171.0", dockerArch: "amd64" } };
}

describe("stagePackageFiles", () => {
  it("stages the bridges and the Codex binary inside the data dir, once per content", () => {
    const dataDir = tempDir("package-files-data");
    const pkg = fakePackage();
    const staged = stagePackageFiles({ dataDir, packageRoot: pkg.root, codex: pkg.codex });
    const root = path.join(dataDir, "caches", "package-files");
    expect(path.dirname(staged.bridgeDir)).toBe(root);
    expect(fs.readdirSync(staged.bridgeDir).sort()).toEqual(["gateway-bridge.cjs", "gateway-bridge.pl"]);
    expect(staged.codex).toMatchObject({ version: "0.171.0", dockerArch: "amd64" });
    const binary = staged.codex?.path ?? "";
    expect(path.dirname(path.dirname(binary))).toBe(root);
    expect(path.basename(binary)).toBe("codex"); // environment builds install <mount>/codex
    expect(fs.readFileSync(binary, "utf8")).toBe("#!/bin/sh\necho codex\n");
    expect(fs.statSync(binary).mode & 0o777).toBe(0o755);
    // same filesystem here: a hard link, no second copy of a 300 MB binary
    expect(fs.statSync(binary).ino).toBe(fs.statSync(pkg.codex.path).ino);

    // again: the same folders, nothing rewritten, no temp folder left
    const before = fs.statSync(path.join(staged.bridgeDir, "gateway-bridge.pl")).mtimeMs;
    expect(stagePackageFiles({ dataDir, packageRoot: pkg.root, codex: pkg.codex })).toEqual(staged);
    expect(fs.statSync(path.join(staged.bridgeDir, "gateway-bridge.pl")).mtimeMs).toBe(before);
    expect(fs.readdirSync(root).filter((name) => name.includes(".tmp-"))).toEqual([]);
  });

  it("gives other bridge contents a folder of their own, so workers of two versions can share a data dir", () => {
    const dataDir = tempDir("package-files-versions");
    const older = stagePackageFiles({ dataDir, packageRoot: fakePackage("print 1;\n").root, codex: null });
    const newer = stagePackageFiles({ dataDir, packageRoot: fakePackage("print 2;\n").root, codex: null });
    expect(newer.bridgeDir).not.toBe(older.bridgeDir);
    expect(fs.readFileSync(path.join(older.bridgeDir, "gateway-bridge.pl"), "utf8")).toBe("print 1;\n");
    expect(fs.readFileSync(path.join(newer.bridgeDir, "gateway-bridge.pl"), "utf8")).toBe("print 2;\n");
    expect(newer.codex).toBeNull();
  });

  it("stages Claude Code's binary and Gemini CLI's bundle with its own Node.js, hard-linked, once per version", () => {
    const dataDir = tempDir("package-files-agents");
    const pkg = fakePackage();
    const claudeBinary = path.join(pkg.root, "claude");
    fs.writeFileSync(claudeBinary, "#!/bin/sh\necho claude\n", { mode: 0o755 });
    const gemini = path.join(pkg.root, "gemini-cli");
    fs.mkdirSync(path.join(gemini, "bundle", "builtin"), { recursive: true });
    fs.writeFileSync(path.join(gemini, "bundle", "gemini.js"), "// entry\n", { mode: 0o755 });
    fs.writeFileSync(path.join(gemini, "bundle", "builtin", "skill.md"), "a skill\n", { mode: 0o600 });
    fs.writeFileSync(path.join(gemini, "package.json"), '{"version":"0.61.0"}\n');
    fs.writeFileSync(path.join(pkg.root, "node"), "#!/bin/sh\necho node\n", { mode: 0o755 });
    const options = {
      dataDir,
      packageRoot: pkg.root,
      codex: null,
      claudeCode: { binary: claudeBinary, version: "2.1.332" },
      geminiCli: {
        bundleDir: path.join(gemini, "bundle"),
        packageJson: path.join(gemini, "package.json"),
        version: "0.61.0",
        node: path.join(pkg.root, "node"),
        nodeVersion: "24.22.3",
      },
    };
    const staged = stagePackageFiles(options);
    const root = path.join(dataDir, "caches", "package-files");
    expect(staged.claudeCode).toEqual({ version: "2.1.332", hostDir: expect.stringContaining(root) as string });
    const claude = path.join(staged.claudeCode?.hostDir ?? "", "claude");
    expect(fs.statSync(claude).ino).toBe(fs.statSync(claudeBinary).ino);
    expect(fs.statSync(claude).mode & 0o777).toBe(0o755);
    const geminiDir = staged.geminiCli?.hostDir ?? "";
    expect(staged.geminiCli?.version).toBe("0.61.0");
    expect(fs.readdirSync(geminiDir).sort()).toEqual(["bundle", "node", "package.json"]);
    expect(fs.statSync(path.join(geminiDir, "bundle", "gemini.js")).ino).toBe(
      fs.statSync(path.join(gemini, "bundle", "gemini.js")).ino,
    );
    // whichever user a container runs as reads the bundle and runs the Node.js
    expect(fs.statSync(path.join(geminiDir, "bundle", "builtin", "skill.md")).mode & 0o777).toBe(0o644);
    expect(fs.statSync(path.join(geminiDir, "node")).mode & 0o777).toBe(0o755);
    expect(agentInstalls(staged)).toEqual({ "claude-code": staged.claudeCode, "gemini-cli": staged.geminiCli });
    expect(stagePackageFiles(options)).toEqual(staged);
    expect(fs.readdirSync(root).filter((name) => name.includes(".tmp-"))).toEqual([]);
  });

  it("stages this package's own bridges and agent CLIs by default, with the versions their package.json says", () => {
    const staged = stagePackageFiles({ dataDir: tempDir("package-files-own") });
    expect(fs.existsSync(path.join(staged.bridgeDir, "gateway-bridge.cjs"))).toBe(true);
    expect(staged.codex && fs.statSync(staged.codex.path).size).toBeGreaterThan(1_000_000);
    const own = (pkg: string) =>
      (
        JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
          version: string;
        }
      ).version;
    expect(staged.claudeCode?.version).toBe(own("@anthropic-ai/claude-code"));
    expect(fs.statSync(path.join(staged.claudeCode?.hostDir ?? "", "claude")).size).toBeGreaterThan(1_000_000);
    expect(staged.geminiCli?.version).toBe(own("@google/gemini-cli"));
    expect(fs.existsSync(path.join(staged.geminiCli?.hostDir ?? "", "bundle", "gemini.js"))).toBe(true);
    expect(fs.statSync(path.join(staged.geminiCli?.hostDir ?? "", "node")).size).toBeGreaterThan(1_000_000);
  });
});
