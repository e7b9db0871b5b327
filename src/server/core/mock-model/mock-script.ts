import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { tokenUsageSchema } from "../../../shared/token-usage";
import { messageOf } from "../../../shared/error-message";

/**
 * A mock-model script: what the scripted "model" answers, one step per model response. The request's
 * `model` names the script (`mock-scripts/<model>.json`). Documented in docs/agents.md.
 */
export const SHELL_TOOLS = ["exec_command", "shell_command", "shell"] as const;
export type ShellToolName = (typeof SHELL_TOOLS)[number];

const usageSchema = z.strictObject({
  ...tokenUsageSchema.shape,
  cachedInputTokens: tokenUsageSchema.shape.cachedInputTokens.default(0),
  reasoningTokens: tokenUsageSchema.shape.reasoningTokens.default(0),
});

/** Fields every step that answers with a response may carry. */
const responseFields = {
  /** A reasoning summary sent before the step's item (Codex shows it as a reasoning item). */
  reasoning: z.string().optional(),
  /** Token usage reported in this response's `response.completed` (else the script's `usage`). */
  usage: usageSchema.optional(),
  /** Milliseconds the "model" thinks after `response.in_progress` before answering (else the script's `thinkMs`). */
  thinkMs: z.number().int().min(0).max(600_000).optional(),
};
const shellFields = {
  ...responseFields,
  /** Force one shell tool; by default the first of exec_command, shell_command, shell the request offers. */
  tool: z.enum(SHELL_TOOLS).optional(),
  /** Ask for a login shell (Codex's default; slower to start). Default false. */
  login: z.boolean().default(false),
};

export const mockStepSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("run"), command: z.string().min(1), ...shellFields }),
  z.strictObject({
    kind: z.literal("write-file"),
    /** Relative to the agent's working directory, or absolute. */
    path: z
      .string()
      .min(1)
      .refine((p) => !p.includes("\0"), "path must not contain NUL"),
    /** Written exactly (no trailing newline added). Keep it under ~100 KB: it travels as one shell argument. */
    content: z
      .string()
      .refine((c) => !c.includes("\0"), "content must not contain NUL")
      .refine((c) => Buffer.byteLength(c) <= 100_000, "content is limited to 100,000 bytes"),
    ...shellFields,
  }),
  z.strictObject({
    kind: z.literal("reply"),
    text: z.string(),
    /** Send `text` this many times over (for large responses). Default 1. */
    repeat: z.number().int().min(1).max(1_000_000).default(1),
    /** Characters per `response.output_text.delta` event. Default 4096. */
    deltaChars: z.number().int().min(1).default(4096),
    ...responseFields,
  }),
  z.strictObject({
    kind: z.literal("fail"),
    status: z.number().int().min(400).max(599),
    message: z.string().default("The mock model was scripted to fail."),
  }),
  z.strictObject({
    kind: z.literal("cut"),
    /** `reset`: destroy the connection mid-stream; `close`: end the stream without `response.completed`. */
    mode: z.enum(["reset", "close"]).default("reset"),
    /** Text streamed before the cut. */
    partialText: z.string().default("This response is cut off mid-"),
  }),
]);
export type MockStep = z.infer<typeof mockStepSchema>;

export const mockScriptSchema = z.strictObject({
  description: z.string().optional(),
  /** Usage every response reports unless its step says otherwise. */
  usage: usageSchema.default({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 }),
  /** Model latency for every response unless its step says otherwise (default 0: answer at once). */
  thinkMs: z.number().int().min(0).max(600_000).default(0),
  /**
   * Other scripts that answer every other conversation in turn: with `["b"]` the 1st, 3rd, 5th ...
   * conversation naming this script plays its own steps and the 2nd, 4th ... plays `b`'s (a result that
   * varies between repeats of one configuration). A conversation is known by the request's
   * `prompt_cache_key` (Codex sends its conversation id), else its `session_id` header.
   */
  alternate: z.array(z.string().min(1)).max(10).default([]),
  steps: z.array(mockStepSchema).min(1),
});
export type MockScript = z.infer<typeof mockScriptSchema>;
export type MockScriptInput = z.input<typeof mockScriptSchema>;

const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function isScriptName(name: string): boolean {
  return SCRIPT_NAME.test(name) && !name.includes("..");
}

export function parseMockScript(options: { name: string; json: unknown }): MockScript {
  const result = mockScriptSchema.safeParse(options.json);
  if (!result.success) {
    const issues = result.error.issues
      .map((issue) => `${issue.path.join(".") || "(script)"}: ${issue.message}`)
      .join("; ");
    throw new AppError({ code: "BAD_REQUEST", message: `Mock script "${options.name}" is invalid: ${issues}` });
  }
  return result.data;
}

/** Reads `<dir>/<name>.json`; null when there is no such script. Read per request, so edits apply at once. */
export function readMockScript(options: { dir: string; name: string }): MockScript | null {
  if (!isScriptName(options.name)) return null;
  let text: string;
  try {
    text = fs.readFileSync(path.join(options.dir, `${options.name}.json`), "utf8");
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError({
      code: "BAD_REQUEST",
      message: `Mock script "${options.name}" is not valid JSON: ${messageOf(error)}`,
    });
  }
  return parseMockScript({ name: options.name, json });
}

/** Names of the scripts in a directory (files named `*.json`). */
export function listMockScripts(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((file) => file.endsWith(".json"))
      .map((file) => file.slice(0, -".json".length))
      .filter(isScriptName)
      .sort();
  } catch {
    return [];
  }
}
