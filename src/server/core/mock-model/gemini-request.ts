import type http from "node:http";
import { z } from "zod";

/**
 * What the mock model reads from a Gemini API request (`POST /v1beta/models/<model>:<method>`), as
 * Gemini CLI sends it: the conversation (`contents`), the functions on offer and the thinking config.
 * The model comes from the URL path.
 */
const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z.unknown().optional(),
  functionResponse: z.unknown().optional(),
});

export const geminiRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({ role: z.string().optional(), parts: z.array(partSchema).default([]) })).default([]),
  tools: z
    .array(z.looseObject({ functionDeclarations: z.array(z.looseObject({ name: z.string() })).optional() }))
    .default([]),
  generationConfig: z
    .looseObject({ thinkingConfig: z.looseObject({ includeThoughts: z.boolean().optional() }).optional() })
    .optional(),
});
export type GeminiRequest = z.infer<typeof geminiRequestSchema>;

/** Gemini CLI's shell function; the mock's `run` and `write-file` steps become calls to it. */
export const GEMINI_SHELL_TOOL = "run_shell_command";

export const GEMINI_METHODS = ["generateContent", "streamGenerateContent", "countTokens"] as const;
export type GeminiMethod = (typeof GEMINI_METHODS)[number];

/** `/v1beta/models/<model>:<method>` split into its model and method; null for any other path. */
export function parseGeminiPath(pathname: string): { model: string; method: string } | null {
  const match = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
  if (!match) return null;
  return { model: decodeURIComponent(match[1] ?? ""), method: match[2] ?? "" };
}

export function isGeminiMethod(method: string): method is GeminiMethod {
  return (GEMINI_METHODS as readonly string[]).includes(method);
}

/**
 * Which script step answers this request. Stateless, as for the other APIs: each earlier step left a
 * model turn — one `functionCall` per shell step, or text for a reply (however many parts the client
 * kept it in) — so counting those gives the index. Thought parts do not count.
 */
export function geminiStepIndex(request: GeminiRequest): number {
  let index = 0;
  for (const content of request.contents) {
    if (content.role !== "model") continue;
    const calls = content.parts.filter((part) => part.functionCall !== undefined).length;
    const replied = content.parts.some((part) => part.thought !== true && (part.text ?? "") !== "");
    index += calls > 0 ? calls : replied ? 1 : 0;
  }
  return index;
}

export function offersGeminiShell(request: GeminiRequest): boolean {
  return request.tools.some((tool) => tool.functionDeclarations?.some((f) => f.name === GEMINI_SHELL_TOOL));
}

/** Thought parts go only to a request that asked for them (`thinkingConfig.includeThoughts`). */
export function wantsThoughts(request: GeminiRequest): boolean {
  return request.generationConfig?.thinkingConfig?.includeThoughts === true;
}

/** Whether the request carries the key the mock expects, as `x-goog-api-key` or `?key=`. */
export function hasGeminiKey(options: { headers: http.IncomingHttpHeaders; url: URL; apiKey: string }): boolean {
  return options.headers["x-goog-api-key"] === options.apiKey || options.url.searchParams.get("key") === options.apiKey;
}
