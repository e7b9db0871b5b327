import fs from "node:fs/promises";
import type Docker from "dockerode";
import { toDockerLabels, type ContainerLabels } from "./container-spec";
import { handBackCommand, handBackRootFiles } from "./container-files";
import type { ContainerIdentity, UnixUser } from "./container-user";
import { ensureHelperImage, type HelperImage } from "./helper-image";

/** What the hand-back needs to know of a removed container. */
export interface HandBackRecord {
  labels: ContainerLabels;
  identity: ContainerIdentity;
  /** Writable host folders of ours (workspace, Codex home, overlay upper layers, a build's outputs). */
  writable: string[];
  /** Writable folders other containers use at the same time (package caches): handed back only from a container. */
  shared: string[];
  /** overlayfs' work dirs: the kernel leaves a root-owned, mode-000 `work/` in each, which a worker that is not root cannot remove. */
  workDirs: string[];
}

/** The helper's host settings: what `chown -h` over bind mounts strictly needs, and nothing more. */
export function handBackHostConfig(dirs: string[]): Docker.HostConfig {
  return {
    CapDrop: ["ALL"],
    CapAdd: ["CHOWN", "DAC_OVERRIDE"],
    SecurityOpt: ["no-new-privileges:true"],
    NetworkMode: "none",
    ReadonlyRootfs: true,
    Memory: 64 * 1024 * 1024,
    MemorySwap: 64 * 1024 * 1024,
    PidsLimit: 16,
    NanoCpus: 500_000_000,
    Binds: dirs.map((dir, index) => `${dir}:/hand-back/${index}:rw`),
  };
}

/** The product's helper image, imported once per runtime (helper-image.ts); a failed import is tried again next time. */
export function helperImageOnce(docker: Docker): () => Promise<HelperImage> {
  let pending: Promise<HelperImage> | null = null;
  return () => {
    pending ??= ensureHelperImage(docker).catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
}

/** The helper's output without Docker's 8-byte stream headers, for an error message. */
function printable(logs: Buffer | string): string {
  const text = Buffer.isBuffer(logs) ? logs.toString("utf8") : logs;
  const kept = [...text].filter((char) => char >= " " || char === "\n" || char === "\t").join("");
  return kept.slice(-500).trim();
}

/**
 * A worker that is not root cannot change owners: a short root container does it, from the product's
 * own helper image (never the project's: a build or a postinstall could have replaced its `find` or
 * planted /etc/ld.so.preload), named by id, with its entrypoint named here, CHOWN and DAC_OVERRIDE only
 * (to walk and re-own what root left in folders of any mode; never DAC_READ_SEARCH, which permits
 * open_by_handle_at out of a bind mount), a read-only root, no network and small limits.
 */
async function handBackInContainer(options: {
  docker: Docker;
  image: HelperImage;
  record: HandBackRecord;
  dirs: string[];
}): Promise<void> {
  const { docker, record, dirs } = options;
  const [entrypoint, ...args] = handBackCommand({ count: dirs.length, owner: record.identity.filesOwner });
  const helper = await docker.createContainer({
    Image: options.image.id,
    Entrypoint: [entrypoint!],
    Cmd: args,
    User: "0:0",
    Env: [],
    Labels: toDockerLabels({ ...record.labels, role: "probe" }),
    HostConfig: handBackHostConfig(dirs),
  });
  try {
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    if (StatusCode !== 0) {
      const logs = await helper.logs({ stdout: true, stderr: true, follow: false }).catch(() => "");
      throw new Error(`the hand-back helper exited ${StatusCode}: ${printable(logs)}`);
    }
  } finally {
    await helper.remove({ force: true }).catch(() => undefined);
  }
}

/**
 * What a root container created in our folders becomes the host user's again (`chown` clears set-uid
 * and set-gid bits with it): by a root worker itself (not the shared caches, which only root builds use
 * and another build may be writing), else from the helper container.
 */
export async function handBack(options: {
  docker: Docker;
  worker: UnixUser;
  record: HandBackRecord;
  helperImage: () => Promise<HelperImage>;
}): Promise<void> {
  const { record } = options;
  const rootWrote = record.identity.root && record.identity.filesOwner.uid !== 0;
  if (options.worker.uid === 0) {
    if (rootWrote) await handBackRootFiles({ paths: record.writable, owner: record.identity.filesOwner });
    return;
  }
  // a worker that is not root: what root made in its folders, and the kernel's work dirs of its overlays
  const dirs: string[] = [];
  for (const dir of [...(rootWrote ? [...record.writable, ...record.shared] : []), ...record.workDirs])
    if ((await fs.lstat(dir).catch(() => null))?.isDirectory()) dirs.push(dir);
  if (dirs.length > 0)
    await handBackInContainer({ docker: options.docker, image: await options.helperImage(), record, dirs });
}
