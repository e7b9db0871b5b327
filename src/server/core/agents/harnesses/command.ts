import { z } from "zod";
import { wireModelName } from "../../../../shared/model-source";
import { createCodexEventParser } from "../codex-events";
import { CONTAINER_PATHS, GATEWAY_LOOPBACK_URL, shellQuote, type HarnessModule } from "./harness-module";

export const commandHarnessSchema = z.object({
  kind: z.literal("command"),
  /** Any agent CLI as a shell command line; the task is in $INVARIANT_TASK and on stdin. */
  command: z.string().min(1),
  /**
   * The one model its requests through the gateway may name (the configuration's, in $INVARIANT_MODEL);
   * "": the configuration names none, and the gateway forwards no model request for the run.
   */
  model: z.string().default(""),
});
export type CommandHarness = z.infer<typeof commandHarnessSchema>;

/** Any agent CLI as a command line: its outcome is its exit code; JSONL it prints in Codex's form is read as events. */
export const commandHarness: HarnessModule<CommandHarness> = {
  kind: "command",
  agentName: "The agent command",
  progressLabel: () => "Running the agent command",
  command: (run) => `printf '%s' "$INVARIANT_TASK" | sh -c ${shellQuote(run.harness.command)}`,
  env: (run) => ({
    HOME: "/root",
    CODEX_HOME: CONTAINER_PATHS.codexHome,
    GW_TOKEN: run.token,
    INVARIANT_TASK: run.prompt,
    // the one model the gateway forwards this run's requests for (its configuration's)
    INVARIANT_MODEL: wireModelName(run.harness.model),
    OPENAI_BASE_URL: `${GATEWAY_LOOPBACK_URL}/v1`,
    OPENAI_API_KEY: run.token,
  }),
  mounts: ({ homePath }) => [{ hostPath: homePath, containerPath: CONTAINER_PATHS.codexHome, readOnly: false }],
  install: null,
  createParser: ({ threadUsageBefore }) => createCodexEventParser(threadUsageBefore ? { threadUsageBefore } : {}),
  outcome: ({ exit }) => {
    if (exit.stoppedBecause) return { status: "stopped", threadId: null, reason: exit.stoppedBecause };
    if (exit.exitCode === 0) return { status: "succeeded", threadId: null, finalMessage: null };
    return { status: "failed", threadId: null, reason: `The agent command exited with code ${exit.exitCode}.` };
  },
};
