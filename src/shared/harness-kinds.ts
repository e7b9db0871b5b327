import { z } from "zod";
import { REASONING_EFFORTS, type HarnessKind, type ReasoningEffort } from "./vocabulary";

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
 * model runs on (null: a command line, whose requests go to the OpenAI-compatible gateway route), an
 * example model (the form's placeholder), and the effort levels the CLI takes (none: it has no such option).
 */
export const HARNESS_INFO: Record<
  HarnessKind,
  {
    label: string;
    provider: ModelProvider | null;
    modelRequired: boolean;
    exampleModel: string;
    efforts: readonly ReasoningEffort[];
  }
> = {
  codex: {
    label: "Codex",
    provider: "openai",
    modelRequired: true,
    exampleModel: "gpt-5-codex",
    efforts: REASONING_EFFORTS,
  },
  // Claude Code's --effort: low, medium, high, xhigh (and max, which is not offered)
  "claude-code": {
    label: "Claude Code",
    provider: "anthropic",
    modelRequired: true,
    exampleModel: "claude-sonnet-4-5",
    efforts: ["low", "medium", "high", "xhigh"],
  },
  "gemini-cli": {
    label: "Gemini CLI",
    provider: "google",
    modelRequired: true,
    exampleModel: "gemini-2.5-pro",
    efforts: [],
  },
  command: { label: "Command", provider: null, modelRequired: false, exampleModel: "", efforts: [] },
};

/** The effort a configuration of `kind` runs with: `effort` when the CLI takes it, else medium (the default). */
export function effortFor(kind: HarnessKind, effort: ReasoningEffort): ReasoningEffort {
  return HARNESS_INFO[kind].efforts.includes(effort) ? effort : "medium";
}

/** The provider a model name belongs to, by the providers' naming ("claude-…", "gemini-…"; else OpenAI's). */
export function providerOfModel(model: string): ModelProvider {
  if (model.startsWith("claude-")) return "anthropic";
  if (model.startsWith("gemini-")) return "google";
  return "openai";
}
