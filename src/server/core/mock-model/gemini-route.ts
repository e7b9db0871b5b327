import type http from "node:http";
import { sendGeminiError, sendGeminiJson, streamGemini } from "./gemini-answer";
import {
  geminiRequestSchema,
  geminiStepIndex,
  hasGeminiKey,
  isGeminiMethod,
  offersGeminiShell,
  wantsThoughts,
  GEMINI_METHODS,
  GEMINI_SHELL_TOOL,
} from "./gemini-request";
import { estimateTokens, readJsonBody, sendJson } from "./mock-http";
import type { MockModelOptions } from "./mock-model-types";
import { stepAt } from "./mock-step";
import type { ScriptCatalog } from "./script-catalog";

/** `POST /v1beta/models/<model>:<method>`: the Gemini API, as Gemini CLI speaks it; the model names the script. */
export async function handleGemini(options: {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  model: string;
  method: string;
  catalog: ScriptCatalog;
  server: MockModelOptions;
}): Promise<void> {
  const { req, res, url, server, method } = options;
  const refuse = (status: number, message: string) => sendGeminiError({ res, status, message });
  if (!isGeminiMethod(method))
    return refuse(404, `The mock model serves ${GEMINI_METHODS.map((m) => `:${m}`).join(", ")}, not :${method}.`);
  if (req.method !== "POST") return refuse(405, `Use POST ${url.pathname}.`);
  if (server.apiKey !== undefined && !hasGeminiKey({ headers: req.headers, url, apiKey: server.apiKey }))
    return refuse(401, "The mock model did not receive the API key it expects (x-goog-api-key).");
  const body = await readJsonBody(req);
  if (!body.ok) return refuse(body.status, body.message);
  if (method === "countTokens") return sendJson(res, 200, { totalTokens: estimateTokens(body.json) });
  const parsed = geminiRequestSchema.safeParse(body.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse(400, `Not a Gemini API request: ${issue?.path.join(".")}: ${issue?.message ?? "invalid"}`);
  }
  const request = parsed.data;
  // The Gemini API carries no conversation id, so scripts that alternate are refused (script-catalog.ts).
  const choice = options.catalog.choose(options.model, null);
  if (!choice.ok) return refuse(404, choice.message);
  const stepIndex = geminiStepIndex(request);
  server.onRequest?.({ api: "gemini", model: options.model, stepIndex, headers: req.headers, body: request });
  const step = stepAt({ script: choice.script, index: stepIndex, scriptName: choice.played });
  if (step.kind === "fail") return refuse(step.status, step.message);
  if ((step.kind === "run" || step.kind === "write-file") && !offersGeminiShell(request))
    return refuse(
      400,
      `The mock script "${choice.played}" needs the ${GEMINI_SHELL_TOOL} function but the request offers none.`,
    );
  const answer = { res, script: choice.script, step, model: options.model, thoughts: wantsThoughts(request) };
  if (method === "generateContent") await sendGeminiJson(answer);
  else await streamGemini({ ...answer, sse: url.searchParams.get("alt") === "sse" });
}
