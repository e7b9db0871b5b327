import { responsesUsageSchema } from "../../../shared/token-usage";
import { anthropicJsonUsage } from "./apis/anthropic-usage";
import type { GatewayApi, JsonUsage } from "./apis/gateway-api";
import { geminiJsonUsage } from "./apis/gemini-usage";
import { clip } from "./echo-limit";

/** The largest JSON answer the gateway reads whole to meter it (a non-streamed response is far smaller). */
export const JSON_BODY_LIMIT = 32 * 1024 * 1024;

export type { JsonUsage };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The usage a JSON answer of the API reports (Anthropic's and Gemini's are read in apis/); anything
 * that is not JSON says why it cannot be metered.
 */
export function usageOfJsonBody(body: Buffer, api: GatewayApi = "responses"): JsonUsage {
  if (body.length > JSON_BODY_LIMIT)
    return { unmetered: `its JSON body is larger than the ${JSON_BODY_LIMIT / 1024 / 1024} MiB the gateway reads` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { unmetered: "its body is not JSON (nor an event stream)" };
  }
  if (api === "anthropic") return anthropicJsonUsage(parsed);
  if (api === "gemini") return geminiJsonUsage(parsed);
  return responsesJsonUsage(parsed);
}

/**
 * The usage a Responses API JSON answer reports: a non-streamed response (`stream: false`) and a compaction
 * (`/responses/compact`) both carry the Responses API's `usage` object at the top level, with the same
 * fields as `response.completed` in a stream. Anything else — no `usage`, counts that are not
 * numbers, a response still running on the provider — says why it cannot be metered.
 */
function responsesJsonUsage(parsed: unknown): JsonUsage {
  if (!isRecord(parsed)) return { unmetered: "its JSON body is not an object" };
  const raw = parsed.usage;
  if (!isRecord(raw) || typeof raw.input_tokens !== "number" || typeof raw.output_tokens !== "number") {
    const status = typeof parsed.status === "string" ? ` (status "${clip(parsed.status, 40)}")` : "";
    return { unmetered: `it reports no token usage${status}` };
  }
  const usage = responsesUsageSchema.safeParse(raw);
  if (!usage.success) return { unmetered: "its token usage is malformed" };
  const model = typeof parsed.model === "string" && parsed.model !== "" ? clip(parsed.model) : null;
  return { usage: usage.data, model };
}
