import type { HarnessKind } from "../../../../shared/vocabulary";
import type { TokenUsage } from "../../../../shared/token-usage";
import type { Mount } from "../../runtime/container-spec";
import type { AgentEventParser, CodexRunState } from "../codex-events";
import type { RunExit, RunOutcome } from "../codex-outcome";

/** Where things live inside an agent container. */
export const CONTAINER_PATHS = {
  workspace: "/workspace",
  codexHome: "/run/invariant/codex-home",
  /** The run's agent home for the CLIs other than Codex (their conversations, so a later run can resume). */
  agentHome: "/run/invariant/agent-home",
  gatewaySocket: "/run/invariant/gateway.sock",
  bridgeDir: "/opt/invariant/bridge",
  /** The agent CLIs mounted read-only at run time, one folder per kind (Codex is in the image instead). */
  agentsDir: "/opt/invariant/agents",
} as const;
export const BRIDGE_PORT = 8787;
/** The gateway as every agent CLI in a container reaches it: the loopback bridge to its unix socket. */
export const GATEWAY_LOOPBACK_URL = `http://127.0.0.1:${BRIDGE_PORT}`;

/** Single-quotes a string for sh. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

export function tomlString(value: string): string {
  return JSON.stringify(value); // a TOML basic string is JSON-compatible for these characters
}

/**
 * A shell line that stops the run with a message saying why when the image has no glibc: Claude Code's
 * binary and Gemini CLI's Node.js are glibc builds (an Alpine image would fail with a bare "not found").
 */
export function glibcCheck(agentName: string): string {
  return `[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "invariant: ${agentName} needs glibc, which this image lacks (an Alpine or other musl image cannot run it); base the environment on a Debian or Ubuntu image" >&2; exit 96; }`;
}

/** The task with the configuration's instructions before it (for CLIs given both as one prompt). */
export function withInstructions(instructions: string, prompt: string): string {
  return instructions.trim() ? `${instructions.trim()}\n\n${prompt}` : prompt;
}

/**
 * One agent CLI as a worker has it: its version, and the host folder staged from the package that is
 * mounted read-only into the run's container (null: the environment image has the CLI, as Codex).
 */
export interface AgentInstall {
  version: string;
  hostDir: string | null;
}
export type AgentInstalls = Partial<Record<HarnessKind, AgentInstall>>;

/** What a harness module is told about the run it starts (`env` also gets the run's gateway token, never a real key). */
export interface HarnessRun<H> {
  harness: H;
  prompt: string;
  /** The conversation to continue (the CLI's thread or session id), or null for a new one. */
  resumeThreadId: string | null;
  /** Whether the gateway lets hosted tools through (Codex offers web search only then). */
  hostedTools: boolean;
}

/**
 * Everything agent-run.ts needs from one harness kind: one module per kind (codex.ts, claude-code.ts,
 * gemini-cli.ts, command.ts), so another agent CLI is one more module and one registry line.
 */
export interface HarnessModule<H extends { kind: HarnessKind }> {
  kind: H["kind"];
  /** The CLI's name in outcomes and progress lines. */
  agentName: string;
  /** The trial's progress line while it runs ("Running Codex (gpt-5, effort low)"). */
  progressLabel(harness: H): string;
  /**
   * The shell line that runs the agent once the gateway bridge listens. The task must reach the model
   * as the prompt even when it starts with "-".
   */
  command(run: HarnessRun<H>): string;
  /** The container's environment (the token under the name the CLI reads, its home, its quiet flags). */
  env(run: HarnessRun<H> & { token: string }): Record<string, string>;
  /** Where the run's agent home (host `homePath`) is mounted, and the CLI's own files if it needs them. */
  mounts(options: { homePath: string; install: AgentInstall | null }): Mount[];
  /** Whether the CLI must be staged by the worker; the hint when it is missing. Null: nothing staged. */
  install: { hint: string } | null;
  /** Writes what the CLI reads from its home before it starts (Gemini CLI's settings). */
  prepareHome?(homePath: string, harness: H, options?: { hostedTools?: boolean }): void;
  /** Its stdout's parser, emitting the CodexEvent model; `threadUsageBefore`: a resumed thread's usage so far. */
  createParser(options: { threadUsageBefore: TokenUsage | null }): AgentEventParser;
  /** How a run ended, from its exit and what its events said. */
  outcome(options: { state: CodexRunState; exit: RunExit }): RunOutcome;
}
