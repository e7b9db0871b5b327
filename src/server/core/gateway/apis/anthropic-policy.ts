import { clip } from "../echo-limit";
import type { RunPolicy } from "../request-policy";
import {
  findInObjects,
  hostedRefusal,
  isRecord,
  isRefusal,
  modelRefusal,
  parseBodyObject,
  serialiseBody,
  urlRefusal,
  type PolicyRefusal,
} from "./body-policy";
import type { GatewayRoute } from "./gateway-api";

/**
 * Anthropic's Messages API at the gateway (Claude Code sends `POST /v1/messages?beta=true`): its routes
 * and what a request body may ask for. The model is pinned to the run's (`model` in the body). In
 * network mode `none` without hosted tools, anything that makes Anthropic reach the outside world for
 * the run is refused: a server tool (web search, web fetch, code execution, … — every tool with a
 * `type` other than a custom tool's, since new server tools keep appearing under new versioned types),
 * remote MCP servers (`mcp_servers`), and an image or document given by URL or by a stored file id.
 */
export const ANTHROPIC_ROUTES = [
  { path: "/v1/messages", metered: true },
  { path: "/v1/messages/count_tokens", metered: false },
] as const;

export function describeAnthropicRoutes(): string {
  return ANTHROPIC_ROUTES.map((route) => `POST ${route.path}`).join(", ");
}

/** The route of an Anthropic path, or a refusal (404 off the two paths, 405 for a method other than POST). */
export function matchAnthropicRoute(options: { method: string; pathname: string }): GatewayRoute | PolicyRefusal {
  const route = ANTHROPIC_ROUTES.find((candidate) => candidate.path === options.pathname);
  if (!route)
    return {
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${describeAnthropicRoutes()} of the Messages API, not ${clip(options.method, 20)} ${clip(options.pathname)}.`,
    };
  if (options.method !== "POST")
    return {
      status: 405,
      type: "method_not_allowed",
      message: `The model gateway does not forward ${clip(options.method, 20)} ${route.path}; send POST.`,
    };
  return { api: "anthropic", path: route.path, body: "checked", metered: route.metered };
}

/** The first tool Anthropic runs itself (custom tools have no `type`, or `type: "custom"`). */
function serverTool(tools: unknown): string | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) return "(tools that are not a list)";
  for (const tool of tools) {
    if (!isRecord(tool)) return "(a tool that is not an object)";
    if (tool.type === undefined || tool.type === null || tool.type === "custom") continue;
    const name = typeof tool.name === "string" ? ` (${clip(tool.name, 60)})` : "";
    return `${typeof tool.type === "string" ? clip(tool.type) : "(a tool with a type that is not a string)"}${name}`;
  }
  return null;
}

/** The first content block that makes Anthropic fetch something: a `source` by URL or by stored file id. */
function urlSource(value: unknown): string | null {
  return findInObjects(value, (object) => {
    const source = object.source;
    if (!isRecord(source)) return null;
    const kind = typeof object.type === "string" ? clip(object.type, 40) : "a content block";
    if (source.type === "url") return `${kind} by URL`;
    if (source.type === "file") return `${kind} by stored file id`;
    return null;
  });
}

/**
 * Checks a Messages API body (a turn or a count_tokens request: both name the model and may offer
 * tools) against the run's policy. Returns the bytes to send upstream, or a refusal Claude Code shows.
 */
export function checkAnthropicBody(options: { body: Buffer; policy: RunPolicy }): Buffer | PolicyRefusal {
  const { policy } = options;
  const parsed = parseBodyObject(options.body, "Messages API requests");
  if (isRefusal(parsed)) return parsed;
  if (policy.model !== null && parsed.model !== policy.model) return modelRefusal(policy.model, parsed.model);
  if (!policy.hostedTools) {
    const tool = serverTool(parsed.tools);
    if (tool) return hostedRefusal(`it offers the server tool ${tool}, which Anthropic runs itself`);
    if (parsed.mcp_servers !== undefined && parsed.mcp_servers !== null)
      return hostedRefusal("it connects Anthropic to remote MCP servers (`mcp_servers`)");
    const url = urlSource(parsed.messages) ?? urlSource(parsed.system);
    if (url) return urlRefusal(`its messages have an ${url}`, "a base64 or text source");
  }
  return serialiseBody(parsed);
}
