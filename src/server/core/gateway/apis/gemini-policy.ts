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
 * The Gemini API at the gateway (Gemini CLI sends `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`):
 * its routes and what a request may ask for. The model is named in the path and pinned to the run's.
 * In network mode `none` without hosted tools, anything that makes Google reach the outside world for
 * the run is refused: every tool entry other than `functionDeclarations` (Google Search and its
 * retrieval, code execution, URL context, file search, Maps, computer use, … — refused by default, as new
 * ones keep appearing), a `cachedContent` reference (content stored on Google's side, unseen here) and
 * file parts by URI (`fileData`). Field names are read in both spellings the API accepts (camelCase and
 * snake_case).
 */
export const GEMINI_METHODS = [
  { method: "generateContent", metered: true },
  { method: "streamGenerateContent", metered: true },
  { method: "countTokens", metered: false },
] as const;

const PREFIX = "/v1beta/models/";
/** A model id as Google names them (gemini-2.5-pro, gemini-2.5-flash-preview-05-20, …). */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function describeGeminiRoutes(): string {
  return `POST ${PREFIX}<model>:${GEMINI_METHODS.map((m) => m.method).join(", :")}`;
}

/** The route of a Gemini path, or a refusal (404 for another path or method name, 405 for a method other than POST). */
export function matchGeminiRoute(options: { method: string; pathname: string }): GatewayRoute | PolicyRefusal {
  const rest = options.pathname.startsWith(PREFIX) ? options.pathname.slice(PREFIX.length).replace(/%3a/gi, ":") : "";
  const colon = rest.lastIndexOf(":");
  const model = colon > 0 ? rest.slice(0, colon) : "";
  const route = GEMINI_METHODS.find((candidate) => candidate.method === rest.slice(colon + 1));
  if (!route || !MODEL_ID.test(model))
    return {
      status: 404,
      type: "not_found",
      message: `The model gateway forwards only ${describeGeminiRoutes()} of the Gemini API, not ${clip(options.method, 20)} ${clip(options.pathname)}.`,
    };
  if (options.method !== "POST")
    return {
      status: 405,
      type: "method_not_allowed",
      message: `The model gateway does not forward ${clip(options.method, 20)} ${clip(options.pathname)}; send POST.`,
    };
  return { api: "gemini", path: `${PREFIX}${model}:${route.method}`, body: "checked", metered: route.metered, model };
}

const FUNCTION_DECLARATIONS = new Set(["functionDeclarations", "function_declarations"]);

/** The first tool entry that is not the client's own functions. */
function hostedTool(tools: unknown): string | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) return "(tools that are not a list)";
  for (const tool of tools) {
    if (!isRecord(tool)) return "(a tool that is not an object)";
    const other = Object.keys(tool).find((key) => !FUNCTION_DECLARATIONS.has(key));
    if (other !== undefined) return clip(other, 60);
  }
  return null;
}

/** A file part Google fetches by URI (a Files API upload, a bucket, a video link). */
function fileByUri(value: unknown): string | null {
  return findInObjects(value, (object) => {
    const file = object.fileData ?? object.file_data;
    return isRecord(file) ? "a file part by URI (fileData)" : null;
  });
}

function field(body: Record<string, unknown>, camel: string, snake: string): unknown {
  return body[camel] ?? body[snake];
}

/**
 * Checks a Gemini request (generateContent, streamGenerateContent, or countTokens, whose body may nest
 * a whole `generateContentRequest`) against the run's policy and the model its path names.
 */
export function checkGeminiBody(options: { body: Buffer; policy: RunPolicy; model: string }): Buffer | PolicyRefusal {
  const { policy } = options;
  const parsed = parseBodyObject(options.body, "Gemini API requests");
  if (isRefusal(parsed)) return parsed;
  if (policy.model !== null && options.model !== policy.model) return modelRefusal(policy.model, options.model);
  const nested = field(parsed, "generateContentRequest", "generate_content_request");
  const requests = isRecord(nested) ? [parsed, nested] : [parsed];
  for (const request of requests) {
    const named = request.model;
    if (named !== undefined && named !== `models/${options.model}` && named !== options.model)
      return modelRefusal(options.model, named);
    if (policy.hostedTools) continue;
    const tool = hostedTool(request.tools);
    if (tool) return hostedRefusal(`it offers the tool ${tool}, which Google runs itself`);
    if (field(request, "cachedContent", "cached_content") !== undefined)
      return hostedRefusal("it uses content cached on Google's side (`cachedContent`), which the gateway cannot check");
    const file = fileByUri(request.contents) ?? fileByUri(field(request, "systemInstruction", "system_instruction"));
    if (file) return urlRefusal(`its contents have ${file}`, "inlineData");
  }
  return serialiseBody(parsed);
}
