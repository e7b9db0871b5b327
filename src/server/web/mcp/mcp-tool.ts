import { z } from "zod";
import type { McpBackend } from "./mcp-backend";

/** What a tool's run may use besides its input: the backend, progress notifications, the call's abort signal. */
export interface ToolContext {
  backend: McpBackend;
  /** Sends a progress notification when the caller asked for them (a progressToken); a no-op otherwise. */
  progress(update: { progress: number; total?: number; message: string }): Promise<void>;
  signal: AbortSignal;
}

/**
 * A tool's answer: `data` becomes the result's structuredContent, `text` its text content (the JSON of
 * `data` when absent). `refused` marks an answer whose outcome is not a success (an apply refused for
 * conflicts, a study that ended refused): an MCP tool error that still carries the data.
 */
export interface ToolAnswer {
  data: Record<string, unknown>;
  text?: string;
  refused?: { message: string; code: string };
}

/**
 * One MCP tool: its input schema is a zod schema (the tRPC procedure's or the CLI's, or built from them),
 * listed as JSON Schema and parsed before `run`. `write` tools change something: viewers neither see
 * nor may call them (the dashboard's role gate refuses them again).
 */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  access: "read" | "write";
  input: z.ZodType<Record<string, unknown>>;
  run(input: unknown, context: ToolContext): Promise<ToolAnswer>;
}

/** Declares a tool with its input typed by its schema. */
export function defineTool<S extends z.ZodType<Record<string, unknown>>>(tool: {
  name: string;
  title: string;
  description: string;
  access: "read" | "write";
  input: S;
  run(input: z.output<S>, context: ToolContext): Promise<ToolAnswer>;
}): McpTool {
  return { ...tool, run: (input, context) => tool.run(input as z.output<S>, context) };
}

/** A project named as the CLI and the study file name it. */
export const projectRefSchema = z
  .string()
  .trim()
  .min(1, "Name the project: its id, name or directory (projects_list lists them).")
  .max(4096)
  .describe("The project's id, name or directory (as projects_list shows them).");

/** How long a waiting tool waits: short by default, because MCP clients give up on a call after about a minute. */
export const waitSecondsSchema = (what: string) =>
  z
    .int("Whole seconds, please.")
    .min(0)
    .max(3600, "At most 3600 s; call again to wait longer.")
    .default(50)
    .describe(
      `Seconds to wait for ${what} before answering with a timeout error (call again to keep waiting). Default 50: most MCP clients give up on a call after 60 s unless told otherwise.`,
    );

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
