import { describe, expect, it } from "vitest";
import { fromText } from "../../../lib/files/byte-path";
import { findTestSteering } from "./test-steering";

type Change = { path: string; status: "added" | "modified" | "deleted"; before?: string; after?: string };

/** findTestSteering over plain changes: bytes come from the `before` / `after` texts. */
function steering(options: { changes?: Change[]; leftOut?: string[]; captured?: string[]; testCommand?: string }) {
  const changes = options.changes ?? [];
  const byPath = new Map(changes.map((change) => [fromText(change.path), change]));
  return findTestSteering({
    changes: changes.map((change) => ({ path: fromText(change.path), status: change.status })),
    leftOut: (options.leftOut ?? []).map(fromText),
    captured: options.captured ?? [],
    testCommand: options.testCommand ?? "pytest -q",
    read: (rel, side) => {
      const text = byPath.get(rel)?.[side];
      return Promise.resolve(text === undefined ? null : Buffer.from(text));
    },
  });
}

const paths = async (options: Parameters<typeof steering>[0]) => (await steering(options)).map((item) => item.path);

describe("test-steering files", () => {
  it("flags runner hooks and configuration by name, at any depth", async () => {
    const flagged = [
      "tests/conftest.py",
      "pytest.ini",
      ".pytest.ini",
      "tox.ini",
      "src/sitecustomize.py",
      "usercustomize.py",
      "lib/python3.11/site-packages/evil.pth",
      ".pytest_cache/v/cache/lastfailed",
      "jest.config.ts",
      "vitest.config.mts",
      "vite.config.js",
      "vitest.workspace.ts",
      ".mocharc.yml",
      ".mocharc",
      ".taprc",
      "ava.config.cjs",
      "karma.conf.js",
      "babel.config.json",
      ".babelrc",
      "tsconfig.json",
      "packages/a/tsconfig.build.json",
      "test/setup.ts",
      "src/setupTests.js",
      "jest.setup.js",
      "vitest.setup.ts",
      "global-setup.mjs",
      ".npmrc",
      ".yarnrc.yml",
      ".pnpmfile.cjs",
      "bunfig.toml",
      "node.config.json",
      ".cargo/config.toml",
      "tests/.gitignore",
    ];
    const ordinary = [
      "src/app.py",
      "README.md",
      "src/conftest_helpers.py",
      "docs/setup.md",
      "config.toml",
      "src/index.ts",
    ];
    const changes = [...flagged, ...ordinary].map((path) => ({ path, status: "added" as const }));
    expect(await paths({ changes })).toEqual(flagged);
  });

  it("counts package.json and pyproject.toml only when the part runners read changed", async () => {
    const pkg = (scripts: string, version: string) =>
      `{ "version": "${version}", "scripts": { "test": "${scripts}" } }`;
    const toml = (addopts: string, version: string) =>
      `[project]\nversion = "${version}"\n\n[tool.pytest.ini_options]\naddopts = "${addopts}"\n\n[tool.ruff]\nline-length = 100\n`;
    const result = await steering({
      changes: [
        {
          path: "package.json",
          status: "modified",
          before: pkg("node --test", "1.0.0"),
          after: pkg("node --test", "1.1.0"),
        },
        { path: "a/package.json", status: "modified", before: pkg("node --test", "1"), after: pkg("true", "1") },
        { path: "pyproject.toml", status: "modified", before: toml("-q", "1"), after: toml("-q", "2") },
        { path: "b/pyproject.toml", status: "modified", before: toml("-q", "1"), after: toml("-p no:x", "1") },
        {
          path: "setup.cfg",
          status: "modified",
          before: "[metadata]\nname = a\n",
          after: "[tool:pytest]\naddopts = -x\n",
        },
        { path: "c/package.json", status: "deleted", before: pkg("x", "1") },
        { path: "d/package.json", status: "modified", before: pkg("x", "1"), after: "not json" },
      ],
    });
    expect(result.map((item) => [item.path, item.change])).toEqual([
      ["a/package.json", "modified"],
      ["b/pyproject.toml", "modified"],
      ["setup.cfg", "modified"],
      ["c/package.json", "deleted"],
      ["d/package.json", "modified"],
    ]);
  });

  it("flags files the test command names, and Makefiles for make", async () => {
    const changes = ["run-tests.sh", "support/hook.cjs", "Makefile", "other.sh"].map((path) => ({
      path,
      status: "modified" as const,
    }));
    expect(await paths({ changes, testCommand: "sh run-tests.sh && node --require=./support/hook.cjs x" })).toEqual([
      "run-tests.sh",
      "support/hook.cjs",
    ]);
    const make = await steering({ changes, testCommand: "make test" });
    expect(make).toEqual([{ path: "Makefile", change: "modified", steers: "named by the test command", shown: true }]);
  });

  it("lists what the diff left out as hidden, and never a captured file (the evaluation restores it)", async () => {
    const result = await steering({
      changes: [{ path: "tests/conftest.py", status: "modified" }],
      leftOut: ["tests/.gitignore", "node_modules", "build/conftest.py"],
      captured: ["tests/conftest.py"],
    });
    expect(result).toEqual([
      {
        path: "tests/.gitignore",
        change: "added",
        steers: "ignore rules (what the review and the evaluation include)",
        shown: false,
      },
      { path: "build/conftest.py", change: "added", steers: "pytest hooks and fixtures", shown: false },
    ]);
  });
});
