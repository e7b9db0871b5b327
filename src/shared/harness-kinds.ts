import { z } from "zod";
import type { HarnessKind } from "./vocabulary";

/** The model services agents talk to through the gateway, each with its own API and credential. */
export const MODEL_PROVIDERS = ["openai", "anthropic", "google"] as const;
export const modelProviderSchema = z.enum(MODEL_PROVIDERS);
export type ModelProvider = z.infer<typeof modelProviderSchema>;

export const PROVIDER_INFO: Record<ModelProvider, { label: string; api: string; keyVariable: string }> = {
  openai: { label: "OpenAI", api: "Responses API", keyVariable: "OPENAI_API_KEY" },
  anthropic: { label: "Anthropic", api: "Messages API", keyVariable: "ANTHROPIC_API_KEY" },
  google: { label: "Google", api: "Gemini API", keyVariable: "GEMINI_API_KEY" },
};

/**
 * What each harness kind is, for every layer that names or offers one: its label, the provider its
 * model runs on (null: a command line, whose requests go to the OpenAI-compatible gateway route), and
 * the model a new configuration of it starts with.
 */
export const HARNESS_INFO: Record<
  HarnessKind,
  { label: string; provider: ModelProvider | null; modelRequired: boolean; defaultModel: string }
> = {
  codex: { label: "Codex", provider: "openai", modelRequired: true, defaultModel: "gpt-5-codex" },
  "claude-code": {
    label: "Claude Code",
    provider: "anthropic",
    modelRequired: true,
    defaultModel: "claude-sonnet-4-5",
  },
  "gemini-cli": { label: "Gemini CLI", provider: "google", modelRequired: true, defaultModel: "gemini-2.5-pro" },
  command: { label: "Command", provider: null, modelRequired: false, defaultModel: "" },
};

/** The harness kinds that run an agent CLI the product ships (all but `command`). */
export function isAgentHarness(kind: HarnessKind): kind is Exclude<HarnessKind, "command"> {
  return kind !== "command";
}
