import { outputLines } from "./output-text";

/**
 * Lines that say a module or program the tests need could not be loaded. Relative imports
 * ("./calendar") are the project's own files, not dependencies, and are left alone.
 */
const MISSING = [
  /Cannot find (?:module|package) ['"](?![./])[^'"]+['"]/, // Node.js (CommonJS, ESM)
  /Failed to (?:load url|resolve import) ['"]?(?![./])[^\s'"]+/, // Vite / Vitest
  /ModuleNotFoundError: No module named ['"][^'"]+['"]/, // Python
  /ImportError: No module named \S+/,
  /^(?:\/bin\/)?(?:sh|bash|dash)(?:: line)?(?::? \d+)?: [^:]+: (?:command )?not found$/, // the shell (exit 127)
  /^npm (?:error|ERR!) request to https?:\/\/\S+ failed/, // npx fetching a program that is not installed
  /cannot find package "[^"]+"/, // Go
  /unresolved import `[^`]+`/, // Rust
];

/** The last line of the output that says a module or program is missing, or null. */
export function missingModuleLine(output: string): string | null {
  const lines = outputLines({ output });
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    const match = MISSING.find((pattern) => pattern.test(line));
    if (match) return line.length > 200 ? `${line.slice(0, 200)}…` : line;
  }
  return null;
}

export const DEPENDENCY_STEP_ADVICE =
  "If it comes from the project's dependencies (package.json, a lockfile, requirements.txt, pyproject.toml …), install them with the dependency step on the project page (Dependencies → Install dependencies), or install them again if a manifest changed since.";

/**
 * Node.js 22+ takes `node --test`'s arguments as files or globs: `node --test test/` loads the folder as one
 * module, which fails as a single test ("Cannot find module '/workspace/test'"). Node 18 and 20 searched it.
 */
const NODE_TEST_FOLDER = /Cannot find module '\/workspace\/([^']+?)\/?'/;

/** One sentence when the output shows `node --test` was given a folder, else null. */
export function nodeTestFolderHint(output: string): string | null {
  const folder = NODE_TEST_FOLDER.exec(output)?.[1];
  if (!folder || !/node:internal\/test_runner|# Subtest:|✖|not ok/.test(output)) return null;
  return `node --test was given the folder ${folder}/, which Node.js 22 and later load as one module (it fails as a single test). Use "node --test" (it finds ${folder}/**/*.test.js itself) or a glob: node --test "${folder}/**/*.test.js".`;
}

/** One sentence pointing at the dependency step when the output says a module failed to load, else null. */
export function dependencyHint(output: string): string | null {
  const folder = nodeTestFolderHint(output);
  if (folder) return folder;
  const line = missingModuleLine(output);
  return line ? `A module or program could not be loaded ("${line}"). ${DEPENDENCY_STEP_ADVICE}` : null;
}
