// Harness overhead around a one-step scripted agent run, per harness (Codex, Claude Code, Gemini CLI):
// our agent run (container with limits and labels, network none, gateway bridge in the container, unix
// socket, model gateway hop, event parsing, teardown) vs the same CLI started with `docker run --rm
// --network host` straight against the mock model (bench/agent-run-lib.mjs has both arms).
// BENCH_HARNESSES=claude-code,gemini-cli picks harnesses (default: all three); BENCH_RUNS rounds (default 5);
// BENCH_TRACE=1 prints each round's phases and the model requests the mock saw; BENCH_DIRECT_LIMITS=1 gives
// the direct arm our container's limits and hardening too, so what is left is the bridge and the gateway.
import { execFileSync } from "node:child_process";
import { HARNESSES, LIMIT_ARGS, startAgentBench, timeDirect, timeOurs } from "./agent-run-lib.mjs";
import { median, writeResult } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const directArgs = process.env.BENCH_DIRECT_LIMITS ? LIMIT_ARGS : [];
const kinds = (process.env.BENCH_HARNESSES ?? Object.keys(HARNESSES).join(","))
  .split(",")
  .map((kind) => kind.trim())
  .filter(Boolean);
const unknown = kinds.filter((kind) => !HARNESSES[kind]);
if (unknown.length)
  throw new Error(`BENCH_HARNESSES names ${unknown.join(", ")}; use any of ${Object.keys(HARNESSES).join(", ")}`);

/** The load average (1, 5, 15 min): other processes on the host move these figures, so each result says it. */
const load = () => execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).split(" ").slice(0, 3).join(" ");
const NAMES = { codex: "Codex", "claude-code": "Claude Code", "gemini-cli": "Gemini CLI" };

/** Medians of the phases the mock saw: model requests, until the first, first to last, after the last. */
function phases(timings) {
  const m = (key) => Math.round(median(timings.map((t) => t[key])));
  const requests = median(timings.map((t) => t.requests.length));
  return `${requests} requests, ${m("toFirst")} ms to the first, ${m("turn")} ms first→last, ${m("afterLast")} ms after the last`;
}

const bench = await startAgentBench();
try {
  for (const kind of kinds) {
    const loadBefore = load();
    await timeOurs(bench, kind, -1); // warm up both paths (page cache, the engine's image layers)
    await timeDirect(bench, kind, directArgs);
    const ours = [];
    const direct = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(await timeOurs(bench, kind, i));
      direct.push(await timeDirect(bench, kind, directArgs));
      if (process.env.BENCH_TRACE) console.log(kind, i, JSON.stringify({ ours: ours.at(-1), direct: direct.at(-1) }));
    }
    const rounds = ours.map((t, i) => `${Math.round(t.ms)}/${Math.round(direct[i].ms)}`).join(", ");
    writeResult({
      name: `${kind === "codex" ? "agent-run-overhead" : `agent-run-overhead-${kind}`}${directArgs.length ? "-vs-limited" : ""}`,
      unit: "ms",
      value: Math.round(median(ours.map((t) => t.ms))),
      baseline: Math.round(median(direct.map((t) => t.ms))),
      notes: `median of ${RUNS}, interleaved: a one-step scripted ${NAMES[kind]} run through runAgent (container, bridge, unix socket, gateway, event parsing, teardown) vs \`docker run --rm --network host\` of the same CLI straight at the mock${directArgs.length ? ` with our limits (${directArgs.join(" ")})` : ""}. Rounds ours/direct ms: ${rounds}. Phases ours / direct (medians): ${phases(ours)} / ${phases(direct)}. Load average before ${loadBefore}, after ${load()}. Target ≤ 1.3×.`,
    });
  }
} finally {
  await bench.close();
}
