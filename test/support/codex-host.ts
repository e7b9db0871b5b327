import { spawn, type ChildProcessByStdio } from "node:child_process";
import fs from "node:fs";
import type { Readable } from "node:stream";
import { locateCodexBinary } from "../../src/server/core/agents/codex-binary";
import { createCodexEventParser, type CodexEvent, type CodexRunState } from "../../src/server/core/agents/codex-events";
import type { TokenUsage } from "../../src/shared/token-usage";

/** Everything a test needs to know about one `codex exec --json` run on this host. */
export interface HostCodexRun {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  events: CodexEvent[];
  state: CodexRunState;
  /** The child's environment as the kernel saw it (/proc/<pid>/environ), NUL-separated. */
  environ: string;
}

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Runs the real, pinned Codex binary on the host against a provider at `baseUrl` (the gateway or the
 * mock model), with its own CODEX_HOME and HOME, stdin closed, and the run token in GW_TOKEN.
 */
export async function runCodexOnHost(options: {
  model: string;
  baseUrl: string;
  token: string;
  prompt: string;
  cwd: string;
  codexHome: string;
  home: string;
  resumeThreadId?: string;
  /** For a resumed thread: its usage so far (Codex reports thread totals). */
  threadUsageBefore?: TokenUsage;
  timeoutMs?: number;
}): Promise<HostCodexRun> {
  const codex = locateCodexBinary();
  if (!codex) throw new Error("The pinned Codex binary is missing (npm install).");
  fs.mkdirSync(options.codexHome, { recursive: true });
  fs.mkdirSync(options.home, { recursive: true });
  fs.mkdirSync(options.cwd, { recursive: true });
  const provider = `model_providers.gw={ name="gw", base_url="${options.baseUrl}", env_key="GW_TOKEN", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`;
  const args = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    "-m",
    options.model,
    "-c",
    provider,
    "-c",
    'model_provider="gw"',
    // as the product runs it in network mode none: the gateway refuses hosted tools, so none is offered
    "-c",
    'web_search="disabled"',
  ];
  if (options.resumeThreadId) args.push("resume", options.resumeThreadId);
  args.push(options.prompt);
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(codex.path, args, {
    cwd: options.cwd,
    // Only these variables (Next's global types would require NODE_ENV; Codex does not need it).
    env: {
      PATH,
      HOME: options.home,
      CODEX_HOME: options.codexHome,
      GW_TOKEN: options.token,
      LANG: "C.UTF-8",
    } as Record<string, string> as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const parser = createCodexEventParser({ threadUsageBefore: options.threadUsageBefore });
  const events: CodexEvent[] = [];
  let stdout = "";
  let stderr = "";
  let environ = "";
  child.once("spawn", () => {
    try {
      environ = fs.readFileSync(`/proc/${child.pid}/environ`, "utf8");
    } catch {
      environ = "";
    }
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    events.push(...parser.push(chunk));
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.once("close", (code, sig) => resolve([code, sig])),
  );
  clearTimeout(timer);
  events.push(...parser.end());
  return { exitCode, signal, stdout, stderr, events, state: parser.state(), environ };
}
