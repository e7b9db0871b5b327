import type http from "node:http";
import { z } from "zod";

/**
 * What the mock model reads from an Anthropic Messages API request (`POST /v1/messages`), as Claude
 * Code sends it: the model, the conversation, the tools on offer and whether thinking is on.
 */
const contentBlockSchema = z.looseObject({ type: z.string() });

export const anthropicRequestSchema = z.looseObject({
  model: z.string().min(1),
  stream: z.boolean().optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.string(),
        content: z.union([z.string(), z.array(contentBlockSchema)]),
      }),
    )
    .default([]),
  tools: z.array(z.looseObject({ name: z.string().optional() })).default([]),
  thinking: z.looseObject({ type: z.string() }).optional(),
  metadata: z.looseObject({ user_id: z.string().optional() }).optional(),
});
export type AnthropicRequest = z.infer<typeof anthropicRequestSchema>;

/** `POST /v1/messages/count_tokens` takes the same conversation without `stream`/`max_tokens`. */
export const anthropicCountSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()).default([]),
  system: z.unknown().optional(),
  tools: z.array(z.unknown()).default([]),
});

/** The shell tool Claude Code declares; the mock's `run` and `write-file` steps become calls to it. */
export const ANTHROPIC_SHELL_TOOL = "Bash";

/**
 * Which script step answers this request. Stateless, as for the Responses API: every earlier step
 * left one block in an assistant message — a `tool_use` for a shell step, a `text` for a reply —
 * so counting those (thinking blocks aside) gives the index, however the client groups its messages.
 */
export function anthropicStepIndex(request: AnthropicRequest): number {
  let index = 0;
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    if (typeof message.content === "string") {
      index += 1;
      continue;
    }
    for (const block of message.content) if (block.type === "tool_use" || block.type === "text") index += 1;
  }
  return index;
}

export function offersAnthropicShell(request: AnthropicRequest): boolean {
  return request.tools.some((tool) => tool.name === ANTHROPIC_SHELL_TOOL);
}

/** Thinking blocks are only sent to a request that turned thinking on (`enabled` or `adaptive`). */
export function wantsThinking(request: AnthropicRequest): boolean {
  return request.thinking !== undefined && request.thinking.type !== "disabled";
}

/**
 * The conversation a request belongs to (for scripts that alternate): Claude Code's session id, from
 * its `x-claude-code-session-id` header or the `metadata.user_id` it sends (`..._session_<uuid>`).
 */
export function anthropicConversationKey(request: AnthropicRequest, headers: http.IncomingHttpHeaders): string | null {
  const header = headers["x-claude-code-session-id"];
  if (typeof header === "string" && header !== "") return header;
  const userId = request.metadata?.user_id;
  if (!userId) return null;
  const session = /session_([0-9a-f-]{8,})/i.exec(userId);
  return session?.[1] ?? userId;
}

/** Whether the request carries the key the mock expects, as `x-api-key` or `Authorization: Bearer`. */
export function hasAnthropicKey(headers: http.IncomingHttpHeaders, apiKey: string): boolean {
  return headers["x-api-key"] === apiKey || headers.authorization === `Bearer ${apiKey}`;
}
