import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpBackend } from "./mcp-backend";
import type { McpTool } from "./mcp-tool";
import { registerStudyResources } from "./study-resources";
import { callTool } from "./tool-call";
import { MCP_TOOLS, toolsFor } from "./tool-registry";

const INSTRUCTIONS = `invariant-web runs experiments comparing coding agents on a project: a study runs several agent configurations from one frozen snapshot, each trial judged by the same captured tests.
The workflow: projects_list (or project_add, environment_prepare, dependencies_install) → study_create → study_wait (again until it ends) → study_show (verdicts) → trial_diff / trial_tests / trial_transcript → study_choose → apply_plan → apply with the plan's planHash.
Errors are tool errors whose structuredContent.error has kind failure | usage | refused | timeout (as the CLI's exit codes), code, message and fieldErrors.`;

/** A tool as tools/list shows it: its input schema is the JSON Schema of its zod schema (as input). */
function listing(tool: McpTool): Tool {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.input, { io: "input" }) as Record<string, unknown>;
  void _dialect;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: { ...inputSchema, type: "object" },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.access === "read",
      destructiveHint: tool.name === "apply",
      openWorldHint: false,
    },
  };
}

/**
 * The MCP server of one caller (stdio: the process's token; HTTP: the request's), on the official SDK.
 * Tools are answered by our own tools/list and tools/call handlers on McpServer's protocol server rather
 * than registerTool: a call whose arguments do not fit must come back as a tool error carrying the
 * CLI's error kinds and every field's problem, which registerTool's own validation does not give.
 */
export function createMcpServer(options: { backend: McpBackend; version: string }): McpServer {
  const { backend } = options;
  const mcp = new McpServer(
    { name: "invariant-web", title: "invariant-web", version: options.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const visible = toolsFor(backend.role);
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: visible.map(listing) }));
  mcp.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    // a write tool a viewer does not see is still found here, so a forged call is refused, not "unknown"
    const tool = MCP_TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool "${request.params.name}": tools/list names them.`);
    return callTool({ tool, args: request.params.arguments, backend, extra });
  });
  registerStudyResources(mcp, backend);
  return mcp;
}
