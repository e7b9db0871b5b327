import { z } from "zod";
import { reasoningEffortSchema } from "../../../../shared/vocabulary";
import { wireModelName } from "../../../../shared/model-source";
import { createCodexEventParser } from "../codex-events";
import { codexRunOutcome } from "../codex-outcome";
import {
  BRIDGE_PORT,
  CONTAINER_PATHS,
  shellQuote,
  tomlString,
  withInstructions,
  type HarnessModule,
} from "./harness-module";

/** Codex runs from the environment image (its build installs the pinned binary); jobs and manifests keep this shape. */
export const codexHarnessSchema = z.object({
  kind: z.literal("codex"),
  model: z.string().min(1),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string().default(""),
  /** Extra `-c key=value` overrides, passed through to Codex as given. */
  overrides: z.array(z.string().regex(/^[\w.-]+=.+$/s, "Overrides look like key=value")).default([]),
});
export type CodexHarness = z.infer<typeof codexHarnessSchema>;

/** The provider every Codex run talks to: the gateway, through the container's loopback bridge, with the run's token. */
const GATEWAY_PROVIDER = `model_providers.gw={ name="invariant-gateway", base_url=${tomlString(`http://127.0.0.1:${BRIDGE_PORT}/v1`)}, env_key="GW_TOKEN", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`;

/**
 * The flags every Codex run gets, headless or the TUI: no sandbox of its own (the container is one),
 * the model and effort, the gateway as its only provider, and no web search unless the gateway lets
 * hosted tools through (in network mode none it refuses them: do not offer the model one).
 */
export function codexGatewayFlags(options: { model: string; reasoningEffort: string | null; hostedTools: boolean }) {
  return [
    "--dangerously-bypass-approvals-and-sandbox",
    "-m",
    options.model,
    ...(options.reasoningEffort ? ["-c", `model_reasoning_effort=${tomlString(options.reasoningEffort)}`] : []),
    "-c",
    GATEWAY_PROVIDER,
    "-c",
    'model_provider="gw"',
    ...(options.hostedTools ? [] : ["-c", 'web_search="disabled"']),
  ];
}

/** The `codex exec` argument list for a configuration (a new thread, or `resume` of an earlier one). */
export function codexArguments(options: {
  harness: CodexHarness;
  prompt: string;
  resumeThreadId?: string | null;
  /** Whether the gateway lets hosted tools through; without them Codex is told not to offer web search. */
  hostedTools?: boolean;
}): string[] {
  const { harness } = options;
  const prompt = withInstructions(harness.instructions, options.prompt);
  const flags = [
    "--json",
    "--skip-git-repo-check",
    ...codexGatewayFlags({
      model: wireModelName(harness.model),
      reasoningEffort: harness.reasoningEffort,
      hostedTools: options.hostedTools ?? false,
    }),
    ...harness.overrides.flatMap((override) => ["-c", override]),
  ];
  // `--` ends the options: a task that starts with "-" (say "--help me fix…") is the prompt, not a flag
  return options.resumeThreadId
    ? ["codex", "exec", ...flags, "resume", options.resumeThreadId, "--", prompt]
    : ["codex", "exec", ...flags, "--", prompt];
}

export const codexHarness: HarnessModule<CodexHarness> = {
  kind: "codex",
  agentName: "Codex",
  progressLabel: (harness) => `Running Codex (${harness.model}, effort ${harness.reasoningEffort})`,
  command: (run) =>
    `exec ${codexArguments({
      harness: run.harness,
      prompt: run.prompt,
      resumeThreadId: run.resumeThreadId,
      hostedTools: run.hostedTools,
    })
      .map(shellQuote)
      .join(" ")} </dev/null`,
  env: (run) => ({ HOME: "/root", CODEX_HOME: CONTAINER_PATHS.codexHome, GW_TOKEN: run.token }),
  mounts: ({ homePath }) => [{ hostPath: homePath, containerPath: CONTAINER_PATHS.codexHome, readOnly: false }],
  install: null,
  createParser: ({ threadUsageBefore }) => createCodexEventParser(threadUsageBefore ? { threadUsageBefore } : {}),
  outcome: codexRunOutcome,
};
