import { z } from "zod";
import type { NetworkMode } from "./project-schemas";
import type { Tokens } from "./token-usage";
import { HARNESS_INFO } from "./harness-kinds";
import { reasoningEffortSchema } from "./vocabulary";

/**
 * Terminal sessions: a long-lived container of a project's environment with a TTY, running an agent's
 * TUI (Codex, Claude Code, Gemini CLI: the harness kinds of the same names) or a shell, in the project
 * directory itself (direct) or in a private copy (a workspace).
 */
export const SESSION_KINDS = ["codex", "claude-code", "gemini-cli", "shell"] as const;
export const sessionKindSchema = z.enum(SESSION_KINDS);
export type SessionKind = z.infer<typeof sessionKindSchema>;
/** The session kinds that run an agent CLI's TUI (every kind but a shell); each is also a harness kind. */
export type AgentSessionKind = Exclude<SessionKind, "shell">;
export const isAgentSession = (kind: SessionKind): kind is AgentSessionKind => kind !== "shell";
/** A session's name for people: the agent's label (HARNESS_INFO) and its model, or "Shell". */
export function sessionKindLabel(session: { kind: SessionKind; model: string | null }): string {
  if (!isAgentSession(session.kind)) return "Shell";
  return `${HARNESS_INFO[session.kind].label}${session.model ? ` · ${session.model}` : ""}`;
}

export const SESSION_MODES = ["direct", "private"] as const;
export const sessionModeSchema = z.enum(SESSION_MODES);
export type SessionMode = z.infer<typeof sessionModeSchema>;

/**
 * starting → running ⇄ exited (the process ended; the container is kept and can be resumed)
 * → finishing (its removal is recorded before anything is removed) → finished. `interrupted`: the
 * container disappeared while nothing was watching it (it can only be finished).
 */
export const SESSION_STATES = ["starting", "running", "exited", "finishing", "finished", "interrupted"] as const;
export const sessionStateSchema = z.enum(SESSION_STATES);
export type SessionState = z.infer<typeof sessionStateSchema>;
/** States in which the session's container may be running. */
export const LIVE_SESSION_STATES: readonly SessionState[] = ["starting", "running"];
/** States from which a session can be resumed. */
export const RESUMABLE_SESSION_STATES: readonly SessionState[] = ["exited", "interrupted"];
/** A session in these states is ending or over: nothing of it is started or resumed again. */
export const ENDING_SESSION_STATES: readonly SessionState[] = ["finishing", "finished"];
/** States in which the session still has its container (running, or stopped and kept). */
export const CONTAINER_SESSION_STATES: readonly SessionState[] = [...LIVE_SESSION_STATES, "exited"];

const idSchema = z.string().trim().min(1).max(100);

export const startSessionInputSchema = z.object({
  projectId: idSchema,
  kind: sessionKindSchema.default("codex"),
  mode: sessionModeSchema.default("private"),
  /** Agent sessions only; empty = the continued trial's model, else the project's default configuration's (for Codex), else the agent's example model. */
  model: z.string().trim().max(200, "Model names are at most 200 characters.").default(""),
  reasoningEffort: reasoningEffortSchema.optional(),
  /** Who starts it, shown to others (and to a second start refused by the lease); default: the host user. */
  startedBy: z.string().trim().max(100, "Names are at most 100 characters.").default(""),
  /** Continue a result: a private copy of this trial's workspace, in its committed image. */
  fromTrialId: idSchema.optional(),
  /** With fromTrialId: resume the trial's conversation (its agent's thread or session id; else a fresh one). */
  resumeTrialThread: z.boolean().default(true),
  columns: z.number().int().min(20).max(500).default(120),
  rows: z.number().int().min(5).max(200).default(32),
});
export type StartSessionInput = z.input<typeof startSessionInputSchema>;

export const sessionIdInputSchema = z.object({ sessionId: idSchema });

/** What a session's container changed outside /workspace and /tmp: what "Save installed tools" would keep. */
export interface InstalledToolsChangesView {
  added: number;
  changed: number;
  deleted: number;
  /** The folders (two levels deep, e.g. /usr/local) with the most changed paths, most first. */
  topFolders: { folder: string; paths: number }[];
  /** The container's writable layer (Docker's SizeRw), /workspace and /tmp included: what the new image adds at most. */
  sizeBytes: number;
}

export interface SessionView {
  id: string;
  projectId: string;
  projectName: string;
  kind: SessionKind;
  mode: SessionMode;
  model: string | null;
  state: SessionState;
  /** Running with no browser attached. */
  detached: boolean;
  /** Starting, and first fetching the trial's result image from the worker on another host that keeps it (`reason` says which). */
  fetchingImage: boolean;
  reason: string | null;
  /**
   * What the dashboard undid after the session changed what git runs on the host (a hook, executable git
   * config): said on the session's page until it is finished, and in the log.
   */
  notice: string | null;
  startedBy: string;
  threadId: string | null;
  fromTrialId: string | null;
  workspaceId: string | null;
  environmentVersionId: string | null;
  savedVersionId: string | null;
  /** The network mode its container is on; a project's change applies to a session when it resumes. */
  network: NetworkMode;
  columns: number;
  rows: number;
  tokens: Tokens;
  createdAt: string;
  lastActivityAt: string;
  endedAt: string | null;
}

/** A session's last screen as text (sessions.lastScreen): what its terminal showed when it ended. */
export interface SessionLastScreen {
  lines: string[];
  columns: number;
  rows: number;
}

/** socket.io events of the terminal (names and payloads; the server validates every payload). */
export const terminalEvents = {
  /** client → server: start watching a session's terminal; answered with `terminal.screen`. */
  attach: "terminal.attach",
  detach: "terminal.detach",
  /** client → server: keystrokes (admins only; the server drops a viewer's). */
  input: "terminal.input",
  /**
   * client → server: an admin window's size, taken only from the window in control of the size (`claim`: this
   * window takes control first: its admin typed in it or chose "Fit to this window"); the TTY follows.
   */
  resize: "terminal.resize",
  /** server → client: the terminal's size and who decides it (on attach, and whenever either changes). */
  size: "terminal.size",
  /** server → client: the whole screen as escape sequences (on attach), with the terminal's size. */
  screen: "terminal.screen",
  /** server → client: output bytes as they come. */
  output: "terminal.output",
  /** server → client: the session's state changed (exited, resumed, finished). */
  state: "terminal.state",
  /** server → every client: some session changed (lists refetch). */
  sessionsChanged: "sessions.changed",
} as const;

export const terminalAttachSchema = z.object({ sessionId: idSchema });
export const terminalInputSchema = z.object({ sessionId: idSchema, data: z.string().max(64 * 1024) });
export const terminalResizeSchema = z.object({
  sessionId: idSchema,
  columns: z.number().int().min(20).max(500),
  rows: z.number().int().min(5).max(200),
  claim: z.boolean().optional(),
});

export interface TerminalScreen {
  sessionId: string;
  data: string;
  columns: number;
  rows: number;
  state: SessionState;
}
/** Who decides a terminal's size, as one window sees it (src/server/web/sessions/terminal-sizing.ts). */
export type TerminalSizedBy = "this-window" | "your-other-window" | "another-admin-window" | "no-window";
export interface TerminalSizeMessage {
  sessionId: string;
  columns: number;
  rows: number;
  sizedBy: TerminalSizedBy;
}
export interface TerminalOutput {
  sessionId: string;
  data: Uint8Array;
}
export interface TerminalState {
  sessionId: string;
  state: SessionState;
  reason: string | null;
}
