import { z } from "zod";
import type { ImageRegistry } from "../server/core/runtime/registry-transfer";
import { UsageError } from "./usage-error";

/** `host[:port]` and an optional path, as Docker names a registry (lowercase; no scheme, no tag). */
const ADDRESS =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:]+\])(?::\d{1,5})?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;

/** The registry's variables (config.ts reads them with the rest of the environment). */
export const REGISTRY_ENV_SHAPE = {
  INVARIANT_REGISTRY: z.string().min(1).optional(),
  INVARIANT_REGISTRY_USERNAME: z.string().min(1).optional(),
  INVARIANT_REGISTRY_PASSWORD: z.string().min(1).optional(),
};
type RegistryEnv = { [K in keyof typeof REGISTRY_ENV_SHAPE]?: string | undefined };

/** --registry / INVARIANT_REGISTRY with this host's credentials (INVARIANT_REGISTRY_USERNAME/PASSWORD); null when none is set. */
export function registryOf(options: { flag: string | undefined; env: RegistryEnv }): ImageRegistry | null {
  const username = options.env.INVARIANT_REGISTRY_USERNAME;
  const password = options.env.INVARIANT_REGISTRY_PASSWORD;
  const address = (options.flag ?? options.env.INVARIANT_REGISTRY)?.trim().replace(/\/+$/, "");
  if (!address) {
    if (username || password)
      throw new UsageError(
        "INVARIANT_REGISTRY_USERNAME/PASSWORD are set but no registry is: pass --registry HOST[:PORT].",
      );
    return null;
  }
  if (/^[a-z]+:\/\//i.test(address))
    throw new UsageError(
      `--registry takes the registry as Docker names it, without a scheme: ${address.replace(/^[a-z]+:\/\//i, "")} (not ${address}).`,
    );
  if (!ADDRESS.test(address))
    throw new UsageError(
      `--registry "${address}" is not a registry address: HOST[:PORT][/PATH] in lowercase, such as 127.0.0.1:5000 or registry.example.com/team.`,
    );
  if (Boolean(username) !== Boolean(password))
    throw new UsageError("Set both INVARIANT_REGISTRY_USERNAME and INVARIANT_REGISTRY_PASSWORD, or neither.");
  return { address, auth: username && password ? { username, password } : null };
}
