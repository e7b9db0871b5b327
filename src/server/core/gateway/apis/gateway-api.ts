import type { ModelProvider } from "../../../../shared/harness-kinds";
import type { TokenUsage } from "../../../../shared/token-usage";

/**
 * The model APIs the gateway speaks, each for its agent CLI: OpenAI's Responses API (Codex), Anthropic's
 * Messages API (Claude Code) and the Gemini API (Gemini CLI). A request's API is known from its path
 * alone, before anything else is read, so even the gateway's first refusal answers in that API's shape.
 */
export const GATEWAY_APIS = ["responses", "anthropic", "gemini"] as const;
export type GatewayApi = (typeof GATEWAY_APIS)[number];

/** Whose credential a request of each API carries upstream. */
export const API_PROVIDER: Record<GatewayApi, ModelProvider> = {
  responses: "openai",
  anthropic: "anthropic",
  gemini: "google",
};

/** An admitted request: where it goes and what the gateway does with its body and its answer. */
export interface GatewayRoute {
  api: GatewayApi;
  /**
   * The path to append to the API's base URL: for Responses the base ends in `/v1` (as OPENAI_BASE_URL
   * does) and this is what follows it; for Anthropic and Gemini the base is the server root and this is
   * the whole path. Built from the parsed parts, so what goes upstream is what was checked.
   */
  path: string;
  /** `checked`: a JSON body the API's policy reads and approves; `none`: no body is forwarded (GET /v1/models). */
  body: "checked" | "none";
  /** Whether the answer spends tokens (model turns) or not (counting tokens, listing models). */
  metered: boolean;
  /** The model a Gemini request names in its path (Anthropic and Responses name it in the body). */
  model?: string;
}

/** The API a path belongs to (Responses for anything that is neither Anthropic's nor Gemini's). */
export function apiOfPath(pathname: string): GatewayApi {
  if (pathname === "/v1/messages" || pathname.startsWith("/v1/messages/")) return "anthropic";
  if (pathname.startsWith("/v1beta/")) return "gemini";
  return "responses";
}

/** A JSON answer's usage and the model it names, or why its tokens cannot be counted. */
export type JsonUsage = { usage: TokenUsage; model: string | null } | { unmetered: string };
