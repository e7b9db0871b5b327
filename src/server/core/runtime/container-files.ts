import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Mount } from "./container-spec";
import { idsText, type UnixUser } from "./container-user";
import { messageOf } from "../../../shared/error-message";

const run = promisify(execFile);

/**
 * The host folders a container may write that are ours to manage: its writable bind mounts and the
 * upper layers of its overlays, inside `roots` (the data dir; without one, any), never inside `keep`
 * (a `userFrom` path: a project directory is its owner's, never re-owned). `exclusive` ones no other
 * container writes while this one exists; `shared` ones (package caches) other containers may.
 */
export function managedWritablePaths(options: { mounts: readonly Mount[]; roots: string[] | null; keep?: string }): {
  exclusive: string[];
  shared: string[];
} {
  const inside = (child: string, parent: string) => {
    const relative = path.relative(parent, child);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  };
  const paths = { exclusive: [] as string[], shared: [] as string[] };
  for (const mount of options.mounts) {
    const source = mount.overlay ? mount.overlay.upperDir : mount.readOnly ? null : mount.hostPath;
    if (!source) continue;
    if (options.keep && (inside(source, options.keep) || inside(options.keep, source))) continue;
    if (options.roots && !options.roots.some((root) => inside(source, root))) continue;
    (mount.shared ? paths.shared : paths.exclusive).push(source);
  }
  return paths;
}

/** `find` over each folder, changing to `to` the entries `select` picks; never follows a symlink, never leaves the filesystem. */
async function reown(options: { dirs: string[]; select: string[]; to: UnixUser }): Promise<void> {
  if (options.dirs.length === 0) return;
  await run(
    "find",
    [...options.dirs, "-xdev", ...options.select, "-exec", "chown", "-h", idsText(options.to), "{}", "+"],
    { maxBuffer: 1024 * 1024 },
  );
}

/**
 * Before a non-root container starts, from a worker running as root: its writable folders become its
 * user's (entries already theirs are left alone), and a writable socket (the model gateway's, in a
 * mode-700 folder) becomes connectable. A folder whose top belongs to someone else is not touched.
 * Only for folders no container is writing meanwhile: `chown -h` leaves the last component's symlink
 * alone, not a directory on the way that a running container swapped for one.
 */
export async function giveToContainerUser(options: { paths: string[]; user: UnixUser; worker: UnixUser }) {
  const { user } = options;
  const dirs: string[] = [];
  for (const hostPath of options.paths) {
    const stat = await fs.lstat(hostPath).catch(() => null);
    if (!stat) continue;
    if (stat.isSocket()) await fs.chmod(hostPath, 0o666);
    else if (stat.isDirectory() && (stat.uid === options.worker.uid || stat.uid === user.uid)) dirs.push(hostPath);
  }
  try {
    await reown({
      dirs,
      select: ["(", "!", "-uid", String(user.uid), "-o", "!", "-gid", String(user.gid), ")"],
      to: user,
    });
  } catch (error) {
    throw new Error(
      `Could not give the container's user (${idsText(user)}) its folders ${dirs.join(", ")}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/**
 * From a worker running as root, before a non-root container starts: the read-only lower layers of its
 * overlays (a snapshot's shared tree, an agent's layer under an evaluation) become the container's user's,
 * since overlayfs checks a write against the owner of the lower file. Shared by every workspace of the
 * snapshot, so it is done once: children before their directory (`-depth`), and a layer whose top is
 * already the user's is taken to be theirs throughout. A container never writes a lower layer.
 */
export async function giveLowersToContainerUser(options: {
  mounts: readonly Mount[];
  roots: string[] | null;
  user: UnixUser;
}): Promise<void> {
  const inside = (child: string) =>
    !options.roots ||
    options.roots.some((root) => {
      const relative = path.relative(root, child);
      return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
    });
  for (const mount of options.mounts) {
    if (!mount.overlay?.userXattr) continue;
    for (const layer of [mount.hostPath, ...(mount.overlay.lowerDirs ?? [])]) {
      const stat = await fs.lstat(layer).catch(() => null);
      if (!stat?.isDirectory() || (stat.uid === options.user.uid && stat.gid === options.user.gid) || !inside(layer))
        continue;
      await run(
        "find",
        [
          layer,
          "-xdev",
          "-depth",
          "(",
          "!",
          "-uid",
          String(options.user.uid),
          "-o",
          "!",
          "-gid",
          String(options.user.gid),
          ")",
          "-exec",
          "chown",
          "-h",
          idsText(options.user),
          "{}",
          "+",
        ],
        { maxBuffer: 1024 * 1024 },
      );
    }
  }
}

/** After a root container, from a worker running as root: what it created in its writable folders becomes `owner`'s. */
export async function handBackRootFiles(options: { paths: string[]; owner: UnixUser }): Promise<void> {
  const dirs: string[] = [];
  for (const hostPath of options.paths)
    if ((await fs.lstat(hostPath).catch(() => null))?.isDirectory()) dirs.push(hostPath);
  await reown({ dirs, select: ["-uid", "0"], to: options.owner });
}

/**
 * The same, inside the product's helper container (helper-image.ts) for a worker that is not root and so
 * cannot change owners itself: absolute paths of the helper image's own programs, never a PATH lookup.
 */
export function handBackCommand(options: { count: number; owner: UnixUser }): string[] {
  const dirs = Array.from({ length: options.count }, (_, index) => `/hand-back/${index}`);
  return [
    "/usr/bin/find",
    ...dirs,
    "-xdev",
    "-uid",
    "0",
    "-exec",
    "/usr/bin/chown",
    "-h",
    idsText(options.owner),
    "{}",
    "+",
  ];
}
