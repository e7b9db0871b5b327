/**
 * The settings.json Gemini CLI (0.61) reads from its home for a run.
 *
 * Besides the main conversation, Gemini CLI sends side requests under model config aliases that name
 * other models (modelConfigs.aliases in its bundle): the classifier, edit corrector and summarizers
 * ask flash-lite, loop detection, the next-speaker check and the edit fixer gemini-3-flash, chat
 * compression a 3-series or 2.5 model by the main model's name. The gateway pins each run to its
 * model and refuses those (400 model_not_allowed), so every such alias is pointed at the run's model
 * with a `modelConfigs.customOverrides` entry: an override sets the model after the alias chain is
 * resolved and keeps the alias's generation settings (a `customAliases` entry would replace them).
 * Overrides are added to Gemini CLI's built-in ones; `overrides` would replace them.
 */

/**
 * Gemini CLI 0.61.0's aliases for requests other than the main conversation, and the keys it resolves
 * without an alias ("context-calibrator" counts tokens). "base" catches any other alias built on it.
 */
export const GEMINI_SIDE_REQUEST_ALIASES = [
  "base",
  "classifier",
  "prompt-completion",
  "fast-ack-helper",
  "edit-corrector",
  "summarizer-default",
  "summarizer-shell",
  "gemini-2.5-flash-base",
  "gemini-3-flash-base",
  "gemini-3.5-flash-base",
  "web-search",
  "web-fetch",
  "web-fetch-fallback",
  "loop-detection",
  "loop-detection-double-check",
  "llm-edit-fixer",
  "next-speaker-checker",
  "context-snapshotter",
  "context-calibrator",
  "chat-compression-3-pro",
  "chat-compression-3-flash",
  "chat-compression-3.1-flash-lite",
  "chat-compression-2.5-pro",
  "chat-compression-2.5-flash",
  "chat-compression-2.5-flash-lite",
  "chat-compression-default",
  "agent-history-provider-summarizer",
] as const;

/** Gemini CLI's tools that run on Google's side (its requests carry googleSearch / urlContext). */
export const GEMINI_HOSTED_TOOLS = ["google_web_search", "web_fetch"] as const;

/**
 * The run's settings: the API key from GEMINI_API_KEY, no folder-trust prompt, no telemetry, usage
 * statistics or update checks (a container reaches only the gateway), one retry of a failed model
 * request instead of ten, and every side request on `model` (the name the CLI sends, as `-m`). The
 * next-speaker check stays off (its default; it would cost a model call per turn); loop detection
 * stays on, on the run's model, as it stops a run that repeats itself.
 */
export function geminiSettings(model: string, options: { hostedTools?: boolean } = {}) {
  return {
    // Google Search and URL fetching are hosted tools the gateway refuses where the project does not
    // allow them (network mode none), and a refused request ends a Gemini CLI run: do not offer them
    ...(options.hostedTools === false ? { tools: { exclude: [...GEMINI_HOSTED_TOOLS] } } : {}),
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 2 },
    model: { skipNextSpeakerCheck: true },
    // model names resolve through modelConfigs.modelIdResolutions (below) instead of built-in rules
    experimental: { dynamicModelConfiguration: true },
    modelConfigs: {
      // without a rule of its own, the model resolves to itself (a built-in rule can turn
      // gemini-3-pro-preview into gemini-3.1-pro-preview-customtools, which the gateway refuses)
      modelIdResolutions: { [model]: { default: model, contexts: [] } },
      customOverrides: GEMINI_SIDE_REQUEST_ALIASES.map((alias) => ({
        match: { model: alias },
        modelConfig: { model },
      })),
    },
  };
}
