import type { RunPolicy } from "../gateway/request-policy";
import type { z } from "zod";
import type { harnessSchema } from "./harness";
import type { NetworkMode } from "../../../shared/project-schemas";
import { scriptedModelScript, wireModelName } from "../../../shared/model-source";

/**
 * What the model gateway lets a run ask the provider for: its configuration's model and no other (a
 * command harness as much as Codex: a command is any program, and its token must not buy a pricier
 * model than its configuration names; one that names none may use none), and hosted tools and URL
 * inputs only where the project's network is allowed; a `scripted:` model's run goes to the bundled
 * scripted model instead of the provider.
 */
export function runPolicy(input: {
  harness: z.input<typeof harnessSchema>;
  network: NetworkMode;
  allowHostedTools?: boolean;
}): RunPolicy {
  const model = input.harness.model ?? "";
  return {
    model: wireModelName(model),
    hostedTools: input.network === "internet" || input.allowHostedTools === true,
    // a scripted model's runs go to the bundled scripted model, never to the provider
    ...(scriptedModelScript(model) !== null ? { scripted: true } : {}),
  };
}

/** "Stopped: the run used 1,234 tokens, reaching its token budget of 1,000." */
export function budgetReason(options: { usedTokens: number; budgetTokens: number | null }): string {
  const figure = (n: number) => n.toLocaleString("en-US");
  return `Stopped: the run used ${figure(options.usedTokens)} tokens, reaching its token budget of ${figure(options.budgetTokens ?? 0)}.`;
}
