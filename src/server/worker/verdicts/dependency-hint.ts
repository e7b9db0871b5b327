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

/** One sentence pointing at the dependency step when the output says a module failed to load, else null. */
export function dependencyHint(output: string): string | null {
  const line = missingModuleLine(output);
  return line ? `A module or program could not be loaded ("${line}"). ${DEPENDENCY_STEP_ADVICE}` : null;
}
