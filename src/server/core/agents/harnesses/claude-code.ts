import path from "node:path";
import { z } from "zod";
import { reasoningEffortSchema } from "../../../../shared/vocabulary";
import { wireModelName } from "../../../../shared/model-source";
import { createClaudeCodeEventParser } from "../claude-code-events";
import { agentRunOutcome } from "../codex-outcome";
import { CONTAINER_PATHS, GATEWAY_LOOPBACK_URL, glibcCheck, shellQuote, type HarnessModule } from "./harness-module";

export const claudeCodeHarnessSchema = z.object({
  kind: z.literal("claude-code"),
  model: z.string().min(1),
  instructions: z.string().default(""),
  /**
   * Extended thinking's token budget (Claude Code's MAX_THINKING_TOKENS, with its adaptive thinking
   * turned off where it can be); null: Claude Code's own default. A model Claude Code only runs with
   * adaptive thinking (the newest, and names it does not know) thinks as it decides.
   */
  thinkingBudget: z.number().int().positive().nullable().default(null),
  /** Claude Code's --effort (low, medium, high, xhigh); null: not passed. */
  reasoningEffort: reasoningEffortSchema.nullable().default(null),
});
export type ClaudeCodeHarness = z.infer<typeof claudeCodeHarnessSchema>;

/** The staged Claude Code binary inside the container (mounted read-only at run time, never in an image). */
const CLAUDE_DIR = path.posix.join(CONTAINER_PATHS.agentsDir, "claude-code");
export const CLAUDE_BINARY = path.posix.join(CLAUDE_DIR, "claude");

/** The `claude -p` argument list: stream-json events, no permission prompts (the container is the sandbox). */
export function claudeCodeArguments(options: {
  harness: ClaudeCodeHarness;
  prompt: string;
  resumeThreadId?: string | null;
}): string[] {
  const { harness } = options;
  const instructions = harness.instructions.trim();
  return [
    CLAUDE_BINARY,
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    wireModelName(harness.model),
    "--dangerously-skip-permissions",
    ...(instructions ? ["--append-system-prompt", instructions] : []),
    ...(harness.reasoningEffort ? ["--effort", harness.reasoningEffort] : []),
    ...(options.resumeThreadId ? ["--resume", options.resumeThreadId] : []),
    // `--` ends the options: a task that starts with "-" is the prompt, not a flag
    "--",
    options.prompt,
  ];
}

/**
 * Claude Code's environment: the gateway (through the loopback bridge) as its API with the run's
 * token as the key, its config and conversations in the run's agent home, every request naming the
 * configuration's model (the gateway forwards no other), one retry, and no traffic besides the model's.
 */
function claudeCodeEnv(harness: ClaudeCodeHarness, token: string): Record<string, string> {
  const model = wireModelName(harness.model);
  return {
    HOME: "/root",
    CLAUDE_CONFIG_DIR: CONTAINER_PATHS.agentHome,
    ANTHROPIC_BASE_URL: GATEWAY_LOOPBACK_URL,
    ANTHROPIC_API_KEY: token,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    CLAUDE_CODE_SUBAGENT_MODEL: model,
    CLAUDE_CODE_MAX_RETRIES: "1",
    // as root it refuses --dangerously-skip-permissions unless told it runs in a sandbox (it does)
    IS_SANDBOX: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...(harness.thinkingBudget
      ? { MAX_THINKING_TOKENS: String(harness.thinkingBudget), CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING: "1" }
      : {}),
  };
}

export const claudeCodeHarness: HarnessModule<ClaudeCodeHarness> = {
  kind: "claude-code",
  agentName: "Claude Code",
  progressLabel: (harness) =>
    `Running Claude Code (${harness.model}${harness.reasoningEffort ? `, effort ${harness.reasoningEffort}` : ""}${harness.thinkingBudget ? `, thinking ${harness.thinkingBudget} tokens` : ""})`,
  command: (run) =>
    `${glibcCheck("Claude Code")}\nexec ${claudeCodeArguments({
      harness: run.harness,
      prompt: run.prompt,
      resumeThreadId: run.resumeThreadId,
    })
      .map(shellQuote)
      .join(" ")} </dev/null`,
  env: (run) => claudeCodeEnv(run.harness, run.token),
  mounts: ({ homePath, install }) => [
    { hostPath: homePath, containerPath: CONTAINER_PATHS.agentHome, readOnly: false },
    ...(install?.hostDir ? [{ hostPath: install.hostDir, containerPath: CLAUDE_DIR, readOnly: true }] : []),
  ],
  install: {
    hint: "Reinstall invariant-web's dependencies (npm install) so the pinned @anthropic-ai/claude-code package and its Linux binary (@anthropic-ai/claude-code-linux-x64) are present.",
  },
  createParser: ({ threadUsageBefore }) => createClaudeCodeEventParser(threadUsageBefore ? { threadUsageBefore } : {}),
  outcome: (options) => agentRunOutcome({ ...options, agent: "Claude Code" }),
};
