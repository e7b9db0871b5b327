import { packageProxyLines } from "./package-proxy-env";
import { BRIDGE_PORT, CONTAINER_PATHS } from "./harnesses/harness-module";
import { harnessModule, type Harness } from "./harnesses/harness-registry";

export {
  BRIDGE_PORT,
  CONTAINER_PATHS,
  GATEWAY_LOOPBACK_URL,
  shellQuote,
  tomlString,
  type AgentInstall,
  type AgentInstalls,
} from "./harnesses/harness-module";
export { harnessModule, harnessSchema, type Harness } from "./harnesses/harness-registry";
export { codexArguments, codexGatewayFlags, codexHarnessSchema } from "./harnesses/codex";
export { commandHarnessSchema } from "./harnesses/command";
export { claudeCodeArguments, claudeCodeHarnessSchema } from "./harnesses/claude-code";
export { geminiCliArguments, geminiCliHarnessSchema } from "./harnesses/gemini-cli";

/**
 * The container's shell script: start the loopback bridge to the gateway socket, wait until it
 * listens, then run the agent its harness module names. The container is the sandbox (no agent
 * CLI's own sandbox or permission prompts).
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
  const run = harnessModule(options.harness).command({
    harness: options.harness,
    prompt: options.prompt,
    resumeThreadId: options.resumeThreadId ?? null,
    hostedTools: options.hostedTools ?? false,
  });
  return ["set -u", ...bridge, ...packageProxyLines({ bridgePort: BRIDGE_PORT }), run].join("\n");
}
