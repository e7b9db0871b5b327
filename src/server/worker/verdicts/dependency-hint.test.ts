import { describe, expect, it } from "vitest";
import { dependencyHint, missingModuleLine, nodeTestFolderHint } from "./dependency-hint";

describe("dependency hint", () => {
  it("finds what each toolchain prints for a missing dependency", () => {
    expect(missingModuleLine("Error: Cannot find module 'vitest/config'\nRequire stack:\n")).toBe(
      "Error: Cannot find module 'vitest/config'",
    );
    expect(missingModuleLine("E   ModuleNotFoundError: No module named 'yaml'\n1 error in 0.1s\n")).toBe(
      "E   ModuleNotFoundError: No module named 'yaml'",
    );
    expect(missingModuleLine("sh: 1: jest: not found\n")).toBe("sh: 1: jest: not found");
    expect(missingModuleLine("Error: Failed to load url dayjs (resolved id: dayjs) in /workspace/a.test.js\n")).toMatch(
      /Failed to load url dayjs/,
    );
    expect(dependencyHint("E   ModuleNotFoundError: No module named 'yaml'\n")).toMatch(/dependency step/);
  });

  it("leaves the project's own missing files alone, and clean output", () => {
    expect(missingModuleLine("Error: Cannot find module './calendar'\n")).toBeNull();
    expect(missingModuleLine("Tests  3 passed (3)\n")).toBeNull();
    expect(dependencyHint("")).toBeNull();
  });

  it("says node --test was given a folder (Node.js 22+ loads it as one module), from a real Node 24 run", () => {
    // `node --test test/` on the calendar fixture in the default base image (Node.js 24.22.3)
    const output =
      "node:internal/modules/cjs/loader:1568\n  throw err;\n  ^\n\nError: Cannot find module '/workspace/test'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1564:15)\n    at wrapResolveFilename (node:internal/modules/cjs/loader:1118:27)\n    at defaultResolveImplForCJSLoading (node:internal/modules/cjs/loader:1142:10)\n    at resolveForCJSWithHooks (node:internal/modules/cjs/loader:1169:12)\n    at Module._load (node:internal/modules/cjs/loader:1341:5)\n    at wrapModuleLoad (node:internal/modules/cjs/loader:261:19)\n    at Module.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:154:5)\n    at node:internal/main/run_main_module:33:47 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v24.22.3\n\u2716 test (39.918237ms)\n\u2139 tests 1\n\u2139 suites 0\n\u2139 pass 0\n\u2139 fail 1\n\u2139 cancelled 0\n\u2139 skipped 0\n\u2139 todo 0\n\u2139 duration_ms 47.519558\n\n";
    expect(dependencyHint(output)).toBe(
      'node --test was given the folder test/, which Node.js 22 and later load as one module (it fails as a single test). Use "node --test" (it finds test/**/*.test.js itself) or a glob: node --test "test/**/*.test.js".',
    );
    expect(nodeTestFolderHint("Error: Cannot find module '/workspace/src/app'\n")).toBeNull(); // not a test run
  });
});
