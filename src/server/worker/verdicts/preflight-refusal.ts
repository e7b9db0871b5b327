/**
 * Whether a test command's result is not a verdict at all but a broken setup: the command was
 * not found, not executable, killed, or crashed before any test ran. Returns one sentence for the
 * user (what went wrong, how to fix it), or null when the verdict stands. A failing baseline is a
 * verdict, not a refusal: an exit code 1 with no parsable counts is never refused (unless npx tried to fetch the
 * test runner from the registry: it is not installed), nor exit 0.
 */
import { DEPENDENCY_STEP_ADVICE, dependencyHint } from "./dependency-hint";
import { outputLines } from "./output-text";
import type { Verdict, VerdictSource } from "./verdict";

const SIGNALS: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  5: "SIGTRAP",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  10: "SIGUSR1",
  11: "SIGSEGV",
  12: "SIGUSR2",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};
const CRASH_SIGNALS = new Set(["SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGSEGV"]);

const FORMAT_NAMES: Record<VerdictSource, string> = {
  junit: "JUnit report",
  tap: "TAP summary",
  "node-test": "node:test summary",
  vitest: "Vitest summary",
  jest: "Jest summary",
  mocha: "Mocha summary",
  pytest: "pytest summary",
  unittest: "unittest summary",
  "go-test": "go test output",
  "cargo-test": "cargo test summary",
  "summary-line": "summary line",
  "exit-code": "output",
};

const MAX_QUOTE_CHARS = 200;

/** The last output line matching `pattern`, trimmed and shortened, or null. */
function lastLineMatching(output: string, pattern: RegExp): string | null {
  const lines = outputLines({ output });
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (pattern.test(line)) return line.length > MAX_QUOTE_CHARS ? `${line.slice(0, MAX_QUOTE_CHARS)}…` : line;
  }
  return null;
}

function signalSentence(exitCode: number): string {
  const signal = SIGNALS[exitCode - 128];
  if (!signal) {
    return `The test command exited with code ${exitCode} and printed no test results. Codes above 128 usually mean a signal killed the process, though no signal has number ${exitCode - 128}; some tools also return ${exitCode} on an internal error. Check the output, then run the command in a session to see what happens.`;
  }
  if (signal === "SIGKILL") {
    return `The test command was killed by SIGKILL (exit code ${exitCode}) before it printed any test results. This usually means it ran out of memory: the container reached its memory limit and the kernel killed the process. Raise the project's memory limit or make the tests use less memory.`;
  }
  if (signal === "SIGTERM") {
    return `The test command was stopped by SIGTERM (exit code ${exitCode}) before it printed any test results, usually because a time limit ran out or the run was stopped. Make the tests finish sooner or raise the time limit.`;
  }
  if (CRASH_SIGNALS.has(signal)) {
    return `The test command crashed with ${signal} (exit code ${exitCode}) before it printed any test results: a fault in the runtime or a native module. Run the command in a session of this environment to see the crash.`;
  }
  return `The test command was interrupted by ${signal} (exit code ${exitCode}) before it printed any test results. Run the evaluation again; if it repeats, run the command in a session to see what sends the signal.`;
}

/**
 * npx (or npm exec) found the program in no node_modules and tried the registry, which trials cannot reach: the
 * test runner is not installed, so no verdict can be had. Returns the refusal, or null.
 */
function registryFetchSentence(output: string): string | null {
  const line = lastLineMatching(output, /^npm (?:error|ERR!) (?:request to https?:\/\/\S+ failed|network request to)/);
  if (!line) return null;
  const url = /https?:\/\/[^/\s]+\/([^\s,]+)/.exec(line)?.[1];
  const name = url ? decodeURIComponent(url.replace(/\/-\/.*$/, "")) : "a package";
  return `The test command tried to download ${name} from the npm registry ("${line}"): it is not installed in this environment, and tests run without network. ${DEPENDENCY_STEP_ADVICE}`;
}

export function preflightRefusal(input: { verdict: Verdict; exitCode: number | null; output: string }): string | null {
  const { verdict, exitCode, output } = input;
  const noTests = verdict.source === "exit-code" || verdict.total === 0;
  const fetched = exitCode !== null && exitCode !== 0 && noTests ? registryFetchSentence(output) : null;
  if (fetched) return fetched;

  if (exitCode === 127) {
    const quote = lastLineMatching(output, /not found|no such file or directory/i);
    const what = quote ? `: "${quote}"` : " (the shell could not find the program)";
    return `The test command was not found (exit code 127)${what}. ${DEPENDENCY_STEP_ADVICE} Install the program in the project's environment otherwise, or call it by a path that exists in the container (for example ./node_modules/.bin/vitest), and check its spelling.`;
  }
  if (exitCode === 126) {
    const quote = lastLineMatching(output, /permission denied|is a directory|cannot execute/i);
    const what = quote ? `: "${quote}"` : " (found but not executable)";
    return `The test command could not be executed (exit code 126)${what}. Make the file executable (chmod +x, and commit that mode) or run it through its interpreter, for example "sh ./run-tests.sh".`;
  }
  if (exitCode === null && noTests) {
    return "The test command ended without an exit code and printed no test results: it was killed or its container stopped before it finished. Run the evaluation again; if it repeats, run the command in a session of this environment to see what happens.";
  }
  if (exitCode !== null && exitCode >= 128 && noTests) return signalSentence(exitCode);
  if (exitCode !== null && exitCode !== 0 && verdict.source !== "exit-code" && verdict.total === 0) {
    const hint = dependencyHint(output);
    return `The test command exited with code ${exitCode} before any test ran: its ${FORMAT_NAMES[verdict.source]} reports 0 tests. Usually a test file failed to load (a syntax error, a missing module or dependency) or the test file pattern matched nothing; the output above the summary says which.${hint ? ` ${hint}` : ""}`;
  }
  return null;
}
