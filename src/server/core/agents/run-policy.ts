import type { RunPolicy } from "../gateway/request-policy";
import type { z } from "zod";
import type { harnessSchema } from "./harness";
import type { NetworkMode } from "../../../shared/project-schemas";
import { scriptedModelScript, wireModelName } from "../../../shared/model-source";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import type { HarnessKind } from "../../../shared/vocabulary";
import { API_PROVIDER, GATEWAY_APIS, type GatewayApi } from "../gateway/apis/gateway-api";

/**
 * What the model gateway lets a run ask the provider for: its configuration's model and no other (a
 * command harness as much as Codex: a command is any program, and its token must not buy a pricier
 * model than its configuration names; one that names none may use none), only its harness's API (a
 * command harness any: it may run any client), and hosted tools and URL
 * inputs only where the project's network is allowed; a `scripted:` model's run goes to the bundled
 * scripted model instead of the provider.
 */
export function runPolicy(input: {
  /** The run's harness (any of harnessSchema's shapes): its kind and model are what is pinned. */
  harness: Pick<z.input<typeof harnessSchema>, "kind" | "model">;
  network: NetworkMode;
  allowHostedTools?: boolean;
}): RunPolicy {
  const model = input.harness.model ?? "";
  return {
    model: wireModelName(model),
    hostedTools: input.network === "internet" || input.allowHostedTools === true,
    apis: harnessApis(input.harness.kind),
    // a scripted model's runs go to the bundled scripted model, never to the provider
    ...(scriptedModelScript(model) !== null ? { scripted: true } : {}),
  };
}

/** The APIs a harness's CLI speaks (its provider's), or null: any (a command line). */
export function harnessApis(kind: HarnessKind): readonly GatewayApi[] | null {
  const provider = HARNESS_INFO[kind].provider;
  return provider === null ? null : GATEWAY_APIS.filter((api) => API_PROVIDER[api] === provider);
}

/** "Stopped: the run used 1,234 tokens, reaching its token budget of 1,000." */
export function budgetReason(options: { usedTokens: number; budgetTokens: number | null }): string {
  const figure = (n: number) => n.toLocaleString("en-US");
  return `Stopped: the run used ${figure(options.usedTokens)} tokens, reaching its token budget of ${figure(options.budgetTokens ?? 0)}.`;
}
