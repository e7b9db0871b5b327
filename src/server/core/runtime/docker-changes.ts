import type Docker from "dockerode";

/** One path of a container's filesystem that differs from its image (Docker's `docker container diff`). */
export interface ContainerChange {
  path: string;
  kind: "added" | "changed" | "deleted";
}

const KINDS: Record<number, ContainerChange["kind"]> = { 0: "changed", 1: "added", 2: "deleted" };

/** The container's changes against its image; empty when it is gone or changed nothing. */
export async function containerChanges(options: { docker: Docker; id: string }): Promise<ContainerChange[]> {
  const changes = (await options.docker
    .getContainer(options.id)
    .changes()
    .catch((error: unknown) => {
      if ((error as { statusCode?: number }).statusCode === 404) return [];
      throw error;
    })) as { Path: string; Kind: number }[] | null;
  return (changes ?? []).map((change) => ({ path: change.Path, kind: KINDS[change.Kind] ?? "changed" }));
}
