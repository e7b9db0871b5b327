import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { classifyError, CliInputError, CliRefusal, fieldErrorsOf } from "../../../shared/automation-errors";
import type { McpBackend } from "./mcp-backend";
import type { McpTool, ToolAnswer } from "./mcp-tool";

export const VIEWER_MESSAGE = "This is a read-only viewer link: changes need the admin's access link.";

/**
 * An error as an MCP tool error (isError): the text a person reads, and in structuredContent the CLI's
 * error (kind failure | usage | refused | timeout, exitCode, code, message, field, fieldErrors).
 */
export function toolError(error: unknown, data: Record<string, unknown> = {}): CallToolResult {
  const problem = classifyError(error);
  const details = problem.fieldErrors
    ? Object.entries(problem.fieldErrors)
        .map(([field, messages]) => `\n  ${field || "(the input)"}: ${messages.join(" ")}`)
        .join("")
    : "";
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${problem.kind}${problem.code ? ` (${problem.code})` : ""}: ${problem.message}${details}`,
      },
    ],
    structuredContent: { ...data, error: problem },
  };
}

function answerOf(answer: ToolAnswer): CallToolResult {
  if (answer.refused) return toolError(new CliRefusal(answer.refused.message, answer.refused.code), answer.data);
  return {
    content: [{ type: "text", text: answer.text ?? JSON.stringify(answer.data, null, 2) }],
    structuredContent: answer.data,
  };
}

/**
 * One tools/call: a write tool is refused for a viewer (it is not even listed for one; the dashboard's
 * role gate would refuse it again), the arguments are parsed with the tool's schema (every problem by
 * field, as a usage error), and whatever the run throws comes back as a tool error in the CLI's kinds.
 */
export async function callTool(options: {
  tool: McpTool;
  args: unknown;
  backend: McpBackend;
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}): Promise<CallToolResult> {
  const { tool, backend, extra } = options;
  if (tool.access === "write" && backend.role !== "admin")
    return toolError(new CliRefusal(VIEWER_MESSAGE, "FORBIDDEN"));
  const parsed = tool.input.safeParse(options.args ?? {});
  if (!parsed.success)
    return toolError(
      new CliInputError(`The arguments of ${tool.name} do not fit its input schema:`, fieldErrorsOf(parsed.error)),
    );
  const progressToken = extra._meta?.progressToken;
  const progress: Parameters<McpTool["run"]>[1]["progress"] = async (update) => {
    if (progressToken === undefined) return;
    await extra.sendNotification({ method: "notifications/progress", params: { progressToken, ...update } });
  };
  try {
    return answerOf(await tool.run(parsed.data, { backend, progress, signal: extra.signal }));
  } catch (error) {
    return toolError(error);
  }
}
