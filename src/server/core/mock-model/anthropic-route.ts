import type http from "node:http";
import { sendAnthropicError, sendAnthropicJson, streamAnthropic } from "./anthropic-answer";
import {
  anthropicConversationKey,
  anthropicCountSchema,
  anthropicRequestSchema,
  anthropicStepIndex,
  hasAnthropicKey,
  offersAnthropicShell,
  wantsThinking,
  ANTHROPIC_SHELL_TOOL,
} from "./anthropic-request";
import { estimateTokens, readJsonBody, sendJson } from "./mock-http";
import type { MockModelOptions } from "./mock-model-types";
import { stepAt } from "./mock-step";
import type { ScriptCatalog } from "./script-catalog";

export const ANTHROPIC_MESSAGES_PATH = "/v1/messages";
export const ANTHROPIC_COUNT_PATH = "/v1/messages/count_tokens";

/**
 * `POST /v1/messages` and `/v1/messages/count_tokens`: Anthropic's Messages API, as Claude Code
 * speaks it (its `?beta=true` query is accepted and ignored).
 */
export async function handleAnthropic(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  pathname: string;
  catalog: ScriptCatalog;
  server: MockModelOptions;
}): Promise<void> {
  const { req, res, server } = options;
  const refuse = (status: number, message: string) => sendAnthropicError({ res, status, message });
  if (req.method !== "POST") return refuse(405, `Use POST ${options.pathname}.`);
  if (server.apiKey !== undefined && !hasAnthropicKey(req.headers, server.apiKey))
    return refuse(401, "The mock model did not receive the API key it expects (x-api-key).");
  const body = await readJsonBody(req);
  if (!body.ok) return refuse(body.status, body.message);
  if (options.pathname === ANTHROPIC_COUNT_PATH) {
    const count = anthropicCountSchema.safeParse(body.json);
    if (!count.success) return refuse(400, `Not a count_tokens request: ${count.error.issues[0]?.message}`);
    return sendJson(res, 200, { input_tokens: estimateTokens(count.data) });
  }
  const parsed = anthropicRequestSchema.safeParse(body.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse(400, `Not a Messages API request: ${issue?.path.join(".")}: ${issue?.message ?? "invalid"}`);
  }
  const request = parsed.data;
  const choice = options.catalog.choose(request.model, anthropicConversationKey(request, req.headers));
  if (!choice.ok) return refuse(404, choice.message);
  const stepIndex = anthropicStepIndex(request);
  server.onRequest?.({ api: "anthropic", model: request.model, stepIndex, headers: req.headers, body: request });
  const step = stepAt({ script: choice.script, index: stepIndex, scriptName: choice.played });
  if (step.kind === "fail") return refuse(step.status, step.message);
  if ((step.kind === "run" || step.kind === "write-file") && !offersAnthropicShell(request))
    return refuse(
      400,
      `The mock script "${choice.played}" needs the ${ANTHROPIC_SHELL_TOOL} tool but the request offers none.`,
    );
  const answer = { res, script: choice.script, step, model: request.model, thinking: wantsThinking(request) };
  if (request.stream === true) await streamAnthropic(answer);
  else await sendAnthropicJson(answer);
}
