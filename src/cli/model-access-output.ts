import type { ModelAccessSettings } from "../server/core/credentials/model-access";
import { describeProviderAccess, harnessAccess, loginCommandFor } from "../server/core/credentials/provider-access";
import type { ProviderAccessView } from "../shared/setup-schemas";
import type { CliConfig } from "./config";

/** What the web process and the CLI show about model access, from the configuration (whether each variable is set; no key). */
export function modelAccessSettingsOf(config: CliConfig): ModelAccessSettings {
  const gateway = config.modelGateway;
  return {
    environmentKey: gateway.openaiApiKey !== null,
    codexHome: gateway.codexHome,
    environmentKeys: { anthropic: gateway.anthropicApiKey !== undefined, google: gateway.googleApiKey !== undefined },
  };
}

export function providerAccessOf(config: CliConfig): ProviderAccessView[] {
  return describeProviderAccess({ ...modelAccessSettingsOf(config), dataDir: config.dataDir });
}

/**
 * Each provider's access and the harnesses it makes usable, one line each, for login, logout and doctor:
 *   ✓ OpenAI     The API key stored in the data dir (…abcd).
 *   ✗ Google     No Google access: …
 *   Harnesses: Codex, Claude Code usable; Gemini CLI not (scripted: models need no access).
 */
export function formatModelAccess(providers: readonly ProviderAccessView[]): string {
  const lines = providers.map((view) => {
    const ending = view.storedKeyEnding ? ` Stored key ends in …${view.storedKeyEnding}.` : "";
    const hint = view.signedIn ? "" : ` Store one: ${loginCommandFor(view.provider)}.`;
    return `${view.signedIn ? "✓" : "✗"} ${view.label.padEnd(10)} ${view.summary}${ending}${hint}`;
  });
  const harnesses = harnessAccess(providers);
  const usable = harnesses.filter((harness) => harness.usable).map((harness) => harness.label);
  const not = harnesses.filter((harness) => !harness.usable).map((harness) => harness.label);
  const parts = [
    usable.length ? `${usable.join(", ")} usable` : "none usable",
    ...(not.length ? [`${not.join(", ")} not`] : []),
  ];
  lines.push(`Harnesses: ${parts.join("; ")} (models named scripted:<script> need no access).`);
  return `${lines.join("\n")}\n`;
}
