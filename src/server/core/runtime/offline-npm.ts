import type { ContainerSpec } from "./container-spec";

/**
 * Evaluation containers have no network. There, `npx vitest` with nothing installed would retry the npm
 * registry for about a minute before it fails (the preflight then looks hung); with npm's offline mode it
 * answers from the cache at once (ENOTCACHED), and the preflight refuses with the dependency step's advice.
 */
export function withOfflineNpm(spec: ContainerSpec): ContainerSpec {
  if (spec.network !== "none" || spec.labels.role !== "evaluation") return spec;
  return { ...spec, env: { npm_config_offline: "true", ...spec.env } };
}
