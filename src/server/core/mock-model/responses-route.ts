import type http from "node:http";
import { answerStep } from "./mock-answer";
import { sendApiError } from "./mock-api-error";
import { readJsonBody } from "./mock-http";
import type { MockModelOptions } from "./mock-model-types";
import { responsesRequestSchema, stepIndexOf, type ResponsesRequest } from "./responses-request";
import type { ScriptCatalog } from "./script-catalog";

/** The request's Responses API body; null when it was refused (and answered with an error). */
async function readResponsesRequest(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  apiKey: string | undefined;
}): Promise<ResponsesRequest | null> {
  const { req, res } = options;
  const refuse = (status: number, message: string, type: string) => {
    sendApiError({ res, status, message, type });
    return null;
  };
  if (req.method !== "POST") return refuse(405, "Use POST /v1/responses.", "invalid_request_error");
  if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
    return refuse(401, "The mock model did not receive the API key it expects.", "invalid_api_key");
  const body = await readJsonBody(req);
  if (!body.ok) return refuse(body.status, body.message, "invalid_request_error");
  const parsed = responsesRequestSchema.safeParse(body.json);
  if (!parsed.success)
    return refuse(
      400,
      `Not a Responses API request: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      "invalid_request_error",
    );
  return parsed.data;
}

/** The conversation a request belongs to: Codex's `prompt_cache_key` (its conversation id), else the `session_id` header. */
function conversationKey(request: ResponsesRequest, headers: http.IncomingHttpHeaders): string | null {
  const key = (request as { prompt_cache_key?: unknown }).prompt_cache_key;
  if (typeof key === "string" && key !== "") return key;
  const header = headers["session_id"] ?? headers["conversation_id"];
  return typeof header === "string" && header !== "" ? header : null;
}

/** `POST /v1/responses`: OpenAI's Responses API, as Codex speaks it. */
export async function handleResponses(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  catalog: ScriptCatalog;
  server: MockModelOptions;
}): Promise<void> {
  const { req, res } = options;
  const request = await readResponsesRequest({ req, res, apiKey: options.server.apiKey });
  if (!request) return;
  const choice = options.catalog.choose(request.model, conversationKey(request, req.headers));
  if (!choice.ok) return sendApiError({ res, status: 404, message: choice.message, type: "model_not_found" });
  const stepIndex = stepIndexOf(request);
  options.server.onRequest?.({
    api: "responses",
    model: request.model,
    stepIndex,
    headers: req.headers,
    body: request,
  });
  await answerStep({
    res,
    script: choice.script,
    step: choice.script.steps[stepIndex] ?? null,
    request,
    scriptName: choice.played,
  });
}
