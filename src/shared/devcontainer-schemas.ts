import { z } from "zod";

/**
 * What a devcontainer.json gave an environment version (its `devcontainer` column): the file, where the
 * image came from (a local image, or a Dockerfile and its sha256), the containerEnv names (not their
 * values, which may be secrets), remoteUser, the lifecycle commands, and the keys that did nothing here.
 */
export const devcontainerRecordSchema = z.object({
  file: z.string(),
  image: z.string().nullable(),
  dockerfile: z.object({ path: z.string(), sha256: z.string(), context: z.string() }).nullable(),
  buildArgs: z.array(z.string()),
  containerEnv: z.array(z.string()),
  remoteUser: z.string().nullable(),
  commands: z.array(z.object({ key: z.string(), script: z.string() })),
  ignored: z.array(z.object({ key: z.string(), reason: z.string() })),
});
export type DevcontainerRecord = z.infer<typeof devcontainerRecordSchema>;

/** A project's devcontainer.json as the environment page sees it: none, usable (with what it gives), or refused (why). */
export type DevcontainerStatus =
  | { state: "none" }
  | { state: "usable"; file: string; record: DevcontainerRecord }
  | { state: "refused"; file: string; problems: string[] };
