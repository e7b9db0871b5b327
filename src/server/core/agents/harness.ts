import { z } from "zod";
import { reasoningEffortSchema } from "../../../shared/vocabulary";
import { wireModelName } from "../../../shared/model-source";
import { packageProxyLines } from "./package-proxy-env";

/** Where things live inside an agent container. */
export const CONTAINER_PATHS = {
  workspace: "/workspace",
  codexHome: "/run/invariant/codex-home",
  gatewaySocket: "/run/invariant/gateway.sock",
  bridgeDir: "/opt/invariant/bridge",
} as const;
export const BRIDGE_PORT = 8787;

export const codexHarnessSchema = z.object({
  kind: z.literal("codex"),
  model: z.string().min(1),
  reasoningEffort: reasoningEffortSchema,
  instructions: z.string().default(""),
  /** Extra `-c key=value` overrides, passed through to Codex as given. */
  overrides: z.array(z.string().regex(/^[\w.-]+=.+$/s, "Overrides look like key=value")).default([]),
});

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

export const harnessSchema = z.discriminatedUnion("kind", [codexHarnessSchema, commandHarnessSchema]);
export type Harness = z.infer<typeof harnessSchema>;

/** Single-quotes a string for sh. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

export function tomlString(value: string): string {
  return JSON.stringify(value); // a TOML basic string is JSON-compatible for these characters
}

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
  harness: z.infer<typeof codexHarnessSchema>;
  prompt: string;
  resumeThreadId?: string | null;
  /** Whether the gateway lets hosted tools through; without them Codex is told not to offer web search. */
  hostedTools?: boolean;
}): string[] {
  const { harness } = options;
  const prompt = harness.instructions.trim() ? `${harness.instructions.trim()}\n\n${options.prompt}` : options.prompt;
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

/**
 * The container's shell script: start the loopback bridge to the gateway socket, wait until it
 * listens, then run the agent. The container is the sandbox (Codex's own sandbox is bypassed).
 */
export function agentScript(options: {
  harness: Harness;
  prompt: string;
  resumeThreadId?: string | null;
  hostedTools?: boolean;
}): string {
  const ready = "/tmp/.invariant-bridge-ready";
  const args = `${BRIDGE_PORT} ${CONTAINER_PATHS.gatewaySocket} ${ready}`;
  // perl (essential on Debian and Ubuntu images) starts in milliseconds; Node.js is the fallback
  const bridge = [
    `if command -v perl >/dev/null; then perl ${CONTAINER_PATHS.bridgeDir}/gateway-bridge.pl ${args} &`,
    `elif command -v node >/dev/null; then node ${CONTAINER_PATHS.bridgeDir}/gateway-bridge.cjs ${args} &`,
    `else echo "invariant: this image has neither perl nor node, one of which the gateway bridge needs; use an image with one of them (the default base image has both)" >&2; exit 97; fi`,
    `i=0; while [ ! -e ${ready} ]; do i=$((i+1)); [ $i -gt 1000 ] && { echo "invariant: the gateway bridge did not start" >&2; exit 98; }; sleep 0.005; done`,
  ];
  const run =
    options.harness.kind === "codex"
      ? `exec ${codexArguments({
          harness: options.harness,
          prompt: options.prompt,
          resumeThreadId: options.resumeThreadId ?? null,
          hostedTools: options.hostedTools ?? false,
        })
          .map(shellQuote)
          .join(" ")} </dev/null`
      : `printf '%s' "$INVARIANT_TASK" | sh -c ${shellQuote(options.harness.command)}`;
  return ["set -u", ...bridge, ...packageProxyLines({ bridgePort: BRIDGE_PORT }), run].join("\n");
}
