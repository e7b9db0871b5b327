import { createHash } from "node:crypto";
import path from "node:path";
import { BRIDGE_PORT, CONTAINER_PATHS } from "../../core/agents/harness";
import type { AgentInstall } from "../../core/agents/harnesses/harness-module";
import { packageProxyLines } from "../../core/agents/package-proxy-env";
import type { ContainerSpec, ResourceLimits } from "../../core/runtime/container-spec";
import type { NetworkMode } from "../../../shared/project-schemas";
import { isAgentSession, type SessionKind } from "../../../shared/session-schemas";
import { workspaceMount, type WorkspaceLayers } from "../../core/workspaces/workspace-mount";
import { SESSION_GATEWAY_SOCKET } from "./session-gateway";
import { SESSION_TOKEN_FILE } from "./session-token";
import { agentTuiEnv, agentTuiLines, agentTuiMounts } from "./agent-tui";

/** Where a session container finds its gateway folder and its control folder. */
export const SESSION_PATHS = {
  gatewayDir: "/run/invariant/gateway",
  control: "/run/invariant/session",
} as const;

/**
 * The session container's main process: the loopback bridge to the gateway socket, then the agent's TUI
 * (resuming the conversation the control folder names: agent-tui.ts) or a login shell. When it exits, the
 * container stops and is kept; starting the container again runs this script again (resume).
 */
export function sessionScript(options: {
  kind: SessionKind;
  model: string;
  reasoningEffort: string | null;
  hostedTools: boolean;
}): string {
  const socket = `${SESSION_PATHS.gatewayDir}/${SESSION_GATEWAY_SOCKET}`;
  const ready = "/tmp/.invariant-bridge-ready";
  const args = `${BRIDGE_PORT} ${socket} ${ready}`;
  const bridge = [
    `rm -f ${ready}`,
    `if command -v perl >/dev/null; then perl ${CONTAINER_PATHS.bridgeDir}/gateway-bridge.pl ${args} &`,
    `elif command -v node >/dev/null; then node ${CONTAINER_PATHS.bridgeDir}/gateway-bridge.cjs ${args} &`,
    `else echo "invariant: this image has neither perl nor node; the model gateway is out of reach" >&2; fi`,
    // an agent's first request needs the bridge; a shell shows its prompt meanwhile (it listens long before
    // anyone types `codex` there)
    ...(isAgentSession(options.kind)
      ? [`i=0; while [ ! -e ${ready} ] && [ $i -lt 400 ]; do i=$((i+1)); sleep 0.005; done`]
      : []),
  ];
  // the gateway token, handed over once the container runs (session-token.ts): never in the container's
  // environment, which a commit of the container (Save installed tools) would copy into the image
  const token = [
    `i=0; while [ ! -s ${SESSION_TOKEN_FILE} ] && [ $i -lt 3000 ]; do i=$((i+1)); sleep 0.01; done`,
    `GW_TOKEN="$(cat ${SESSION_TOKEN_FILE} 2>/dev/null)"; export GW_TOKEN`,
  ];
  const resumeFile = `${SESSION_PATHS.control}/resume-thread`;
  const run = isAgentSession(options.kind)
    ? agentTuiLines(options.kind, { ...options, resumeFile })
    : [`if command -v bash >/dev/null; then exec bash -l; fi`, `exec sh -l`];
  return [
    "set -u",
    ...bridge,
    ...token,
    ...packageProxyLines({ bridgePort: BRIDGE_PORT }),
    `cd ${CONTAINER_PATHS.workspace}`,
    ...run,
  ].join("\n");
}

/** Which web process owns a session container: its data dir, hashed (two installations on one host keep apart). */
export function sessionOwnerOf(dataDir: string): string {
  return createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16);
}

/** The container of a session: a TTY, its files at /workspace, the project's agent home, limits, labels, network. */
export function sessionContainerSpec(options: {
  sessionId: string;
  projectId: string;
  /** sessionOwnerOf(the data dir) */
  owner: string;
  kind: SessionKind;
  image: string;
  model: string;
  reasoningEffort: string | null;
  hostedTools: boolean;
  filesPath: string;
  /** A copy-on-write workspace's other layers (`filesPath` is its upper layer); null for a folder. */
  filesOverlay: WorkspaceLayers;
  /** The project's session home of the agent (a shell gets Codex's, for a `codex` typed there). */
  agentHomePath: string;
  /** The agent CLI staged from the package (Claude Code, Gemini CLI), mounted read-only; null for Codex and a shell. */
  install: AgentInstall | null;
  controlPath: string;
  gatewayDir: string;
  bridgeDir: string;
  network: NetworkMode;
  limits: ResourceLimits;
  columns: number;
  rows: number;
  /** The project's "Run as root" (else the host user, or for a direct session the project directory's owner). */
  runAsRoot: boolean;
  /** Direct sessions: the project directory, whose owner the container runs as when the dashboard is root. */
  userFrom?: string;
}): ContainerSpec {
  const agent = isAgentSession(options.kind) ? options.kind : "codex";
  const home = options.runAsRoot ? "/root" : "/tmp";
  return {
    image: options.image,
    command: ["/bin/sh", "-c", sessionScript(options)],
    env: {
      TERM: "xterm-256color",
      COLORTERM: "truecolor",
      LANG: "C.UTF-8",
      ...agentTuiEnv(agent, { model: options.model, home }),
      // a user other than root has no home in the image: /tmp is writable for every user
      HOME: home,
      COLUMNS: String(options.columns),
      LINES: String(options.rows),
    },
    workingDir: CONTAINER_PATHS.workspace,
    labels: { project: options.projectId, role: "session", session: options.sessionId, sessionOwner: options.owner },
    limits: options.limits,
    network: options.network,
    tty: true,
    runAsRoot: options.runAsRoot,
    ...(options.userFrom ? { userFrom: options.userFrom } : {}),
    mounts: [
      workspaceMount({
        path: options.filesPath,
        overlay: options.filesOverlay,
        containerPath: CONTAINER_PATHS.workspace,
      }),
      ...agentTuiMounts(agent, { homePath: options.agentHomePath, install: options.install }),
      // read-only: connecting to a socket needs no write access to its mount, and a root dashboard then
      // never re-owns this folder, which every session container of the data dir shares
      { hostPath: options.gatewayDir, containerPath: SESSION_PATHS.gatewayDir, readOnly: true },
      { hostPath: options.controlPath, containerPath: SESSION_PATHS.control, readOnly: true },
      { hostPath: options.bridgeDir, containerPath: CONTAINER_PATHS.bridgeDir, readOnly: true },
    ],
  };
}
