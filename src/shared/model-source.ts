/**
 * Which model service a configuration's model runs on. A model named `scripted:<script>` runs on the
 * bundled scripted model (the mock model's `mock-scripts/<script>.json`, served by each worker): no
 * credential is used and nothing leaves the host — the demo runs this way without model access. Any
 * other name goes to the provider the model access points at (an API key, or a ChatGPT sign-in).
 */
export const SCRIPTED_MODEL_PREFIX = "scripted:";

/** The script a `scripted:` model names, or null for a provider's model. */
export function scriptedModelScript(model: string): string | null {
  return model.startsWith(SCRIPTED_MODEL_PREFIX) ? model.slice(SCRIPTED_MODEL_PREFIX.length) : null;
}

/** The model name the agent (and the model service) sees: a scripted model's script name, else the name as given. */
export function wireModelName(model: string): string {
  return scriptedModelScript(model) ?? model;
}
