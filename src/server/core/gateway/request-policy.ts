import { clip } from "./echo-limit";
import type { GatewayApi } from "./apis/gateway-api";
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
} from "./apis/body-policy";

export { isRefusal, type PolicyRefusal } from "./apis/body-policy";

/**
 * The model gateway's egress policy for one request (no I/O): which methods and paths a run may use,
 * and what a Responses API body may ask for. The gateway is the only way out of a container in network
 * mode `none`, so anything that makes the provider reach the outside world on the run's behalf — a
 * hosted tool (web search, remote MCP servers, file search, code interpreter, image generation, …),
 * an image or file given by URL or by a stored file id — is refused there, as is any model other than
 * the run's own, as is a background response (its tokens would be spent after the connection ends, out
 * of the gateway's sight: see backgroundRefusal). The approved body is what goes upstream, re-serialised
 * from the parsed value, so the upstream never reads a different request than the one checked
 * (duplicate keys, odd encodings).
 */

/** What a run may ask the provider for. */
export interface RunPolicy {
  /**
   * The only model the run may use (its configuration's, for Codex and command harnesses alike; "": the
   * configuration names none, so no model request is forwarded); null: any (host-side tools and tests).
   */
  model: string | null;
  /** Hosted tools and URL inputs pass: the project's network mode is `internet`, or its setting allows them. */
  hostedTools: boolean;
  /** The run talks to the bundled scripted model, never to the real provider (no credential is used). */
  scripted?: boolean;
  /**
   * The only APIs the run's token may call (its harness's: Codex Responses, Claude Code Anthropic's
   * Messages, Gemini CLI the Gemini API); null or absent: any (a command harness, host-side tools).
   */
  apis?: readonly GatewayApi[] | null;
}

export const STRICT_POLICY: RunPolicy = { model: null, hostedTools: false };

type Route = { method: "POST"; path: string; body: "responses" } | { method: "GET"; path: string; body: "none" };

/** Everything Codex needs from the provider: model turns, remote compaction, the model list. */
export const GATEWAY_ROUTES: readonly Route[] = [
  { method: "POST", path: "/responses", body: "responses" },
  { method: "POST", path: "/responses/compact", body: "responses" },
  { method: "GET", path: "/models", body: "none" },
];

/** "POST /v1/responses, POST /v1/responses/compact, GET /v1/models" */
export function describeRoutes(): string {
  return GATEWAY_ROUTES.map((route) => `${route.method} /v1${route.path}`).join(", ");
}

/**
 * The route a request takes, or a refusal: 404 for a path the gateway never forwards, 405 for a
 * method it does not forward on that path (GET /v1/responses/<id>, DELETE, … reach stored data).
 */
export function matchRoute(options: { method: string; subPath: string }): Route | PolicyRefusal {
  const onPath = GATEWAY_ROUTES.filter((route) => route.path === options.subPath);
  const route = onPath.find((candidate) => candidate.method === options.method);
  if (route) return route;
  const method = clip(options.method, 20);
  const subPath = clip(options.subPath);
  const forwarded = describeRoutes();
  if (onPath.length > 0)
    return {
      status: 405,
      type: "method_not_allowed",
      message: `The model gateway does not forward ${method} /v1${subPath}; it forwards only ${forwarded}.`,
    };
  return {
    status: 404,
    type: "not_found",
    message: `The model gateway forwards only ${forwarded}, not ${method} /v1${subPath}.`,
  };
}

/** Tool types the client itself executes: they never make the provider reach anything. */
const CLIENT_TOOL_TYPES = new Set(["function", "custom", "local_shell"]);
/** tool_choice values that name no hosted tool. */
const CLIENT_CHOICE_TYPES = new Set(["function", "custom", "allowed_tools"]);

/**
 * `background: true` leaves the response running on the provider after the connection ends; its tokens
 * are known only by polling the stored response (GET /v1/responses/<id>), which is account data the
 * gateway does not forward. Metering it would mean polling on the run's behalf, and a run that ended
 * could still be spending; so it is refused, and the same request without it is metered as it is answered.
 */
function backgroundRefusal(): PolicyRefusal {
  return {
    status: 400,
    type: "background_not_allowed",
    message:
      "The model gateway refused this request: `background: true` runs the response on the provider after the connection ends, where the gateway cannot meter its tokens. Send it without `background` (streamed, or answered as one JSON body): both are metered.",
  };
}

/** The first tool that is not the client's own (namespaces are checked member by member). */
function hostedTool(tools: unknown, depth = 0): string | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools) || depth > 4) return "(tools that are not a list)";
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.type !== "string") return "(a tool without a type)";
    if (tool.type === "namespace") {
      const inner = hostedTool(tool.tools, depth + 1);
      if (inner) return inner;
    } else if (!CLIENT_TOOL_TYPES.has(tool.type)) {
      return tool.type === "mcp" && typeof tool.server_url === "string"
        ? `mcp (server_url ${clip(tool.server_url)})`
        : clip(tool.type);
    }
  }
  return null;
}

function hostedChoice(choice: unknown): string | null {
  if (!isRecord(choice)) return null; // "auto", "none", "required"
  if (typeof choice.type !== "string" || !CLIENT_CHOICE_TYPES.has(choice.type)) return clip(String(choice.type));
  return choice.type === "allowed_tools" ? hostedTool(choice.tools) : null;
}

const URL_KEYS = ["image_url", "file_url"] as const;

/**
 * The first content part in the conversation that makes the provider fetch something: an image or
 * file by URL (a `data:` URL is inline content and passes) or by a stored file id.
 */
function urlInput(input: unknown): string | null {
  return findInObjects(input, (value) => {
    for (const key of URL_KEYS) {
      const url = value[key];
      const href = isRecord(url) ? url.url : url; // image_url may be { url } in older shapes
      const kind = typeof value.type === "string" ? clip(value.type) : key;
      if (typeof href === "string" && !/^data:/i.test(href)) return `${kind} by URL (${key})`;
    }
    if (typeof value.file_id === "string" && (value.type === "input_image" || value.type === "input_file"))
      return `${value.type} by stored file id`;
    return null;
  });
}

/**
 * Checks a Responses API request body against the run's policy. Returns the bytes to send upstream
 * (the parsed body serialised again), or a refusal with a message Codex shows.
 */
export function checkResponsesBody(options: { body: Buffer; policy: RunPolicy }): Buffer | PolicyRefusal {
  const { policy } = options;
  const parsed = parseBodyObject(options.body, "Responses API requests");
  if (isRefusal(parsed)) return parsed;
  if (policy.model !== null && parsed.model !== policy.model) return modelRefusal(policy.model, parsed.model);
  if (parsed.background !== undefined && parsed.background !== null && parsed.background !== false)
    return backgroundRefusal();
  if (!policy.hostedTools) {
    const tool = hostedTool(parsed.tools) ?? hostedChoice(parsed.tool_choice);
    if (tool) return hostedRefusal(`it offers the hosted tool ${tool}`);
    // a stored prompt brings tools and inputs configured on the provider's side, which the gateway cannot see
    if (parsed.prompt !== undefined && parsed.prompt !== null)
      return hostedRefusal("it uses a stored prompt (`prompt`), whose tools and inputs the gateway cannot check");
    const url = urlInput(parsed.input);
    if (url) return urlRefusal(`its input has an ${url}`);
  }
  return serialiseBody(parsed);
}
