import { z } from "zod";
import { SHELL_TOOLS, type ShellToolName } from "./mock-script";

/**
 * What the mock model reads from a Responses API request (`POST /v1/responses`): the model name, the
 * conversation so far (`input`) and the tools on offer. Everything else Codex sends is ignored.
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  stream: z.boolean().optional(),
  // a plain string is one user message, as the Responses API takes it
  input: z
    .union([
      z.string().transform((text) => [{ type: "message", role: "user", content: [{ type: "input_text", text }] }]),
      z.array(z.looseObject({ type: z.string().optional(), role: z.string().optional() })),
    ])
    .default([]),
  tools: z
    .array(
      z.looseObject({ type: z.string().optional(), name: z.string().optional(), parameters: z.unknown().optional() }),
    )
    .default([]),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

/**
 * Which script step answers this request. The server keeps no state: every earlier step left a trace
 * in the conversation Codex sends back — a `function_call_output` for each shell step, an assistant
 * `message` for each reply — so counting those gives the index, across turns and `codex exec resume`.
 */
export function stepIndexOf(request: ResponsesRequest): number {
  let index = 0;
  for (const item of request.input) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") index += 1;
    else if (item.type === "message" && item.role === "assistant") index += 1;
  }
  return index;
}

interface OfferedTool {
  name: ShellToolName;
  properties: Record<string, unknown>;
}

/** The shell tools the request offers, in the order the mock prefers them. */
export function offeredShellTools(request: ResponsesRequest): OfferedTool[] {
  const offered: OfferedTool[] = [];
  for (const name of SHELL_TOOLS) {
    const tool = request.tools.find((t) => (t.type === undefined || t.type === "function") && t.name === name);
    if (!tool) continue;
    const parameters = tool.parameters as { properties?: Record<string, unknown> } | undefined;
    offered.push({ name, properties: parameters?.properties ?? {} });
  }
  return offered;
}

/** Single-quotes a string for a POSIX shell: any byte but NUL survives. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A shell command that writes `content` to `filePath` byte for byte (creating parent directories). */
export function writeFileCommand(options: { path: string; content: string }): string {
  const slash = options.path.lastIndexOf("/");
  const dir = slash > 0 ? options.path.slice(0, slash) : null;
  const write = `printf '%s' ${shellQuote(options.content)} > ${shellQuote(options.path)}`;
  return dir ? `mkdir -p -- ${shellQuote(dir)} && ${write}` : write;
}

/**
 * The `function_call` arguments that make Codex run `command` with the chosen tool, in the shapes
 * Codex declares: `exec_command {cmd, login?}`, `shell_command {command, login?}`, `shell {command: [argv]}`.
 */
export function shellCallArguments(options: {
  tool: OfferedTool;
  command: string;
  login: boolean;
}): Record<string, unknown> {
  const { tool, command, login } = options;
  const loginArg = "login" in tool.properties ? { login } : {};
  switch (tool.name) {
    case "exec_command":
      return { cmd: command, ...loginArg };
    case "shell_command":
      return { command, ...loginArg };
    case "shell":
      return { command: ["bash", login ? "-lc" : "-c", command] };
  }
}
