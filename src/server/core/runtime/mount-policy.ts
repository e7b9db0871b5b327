import fs from "node:fs";
import path from "node:path";
import type { Mount } from "./container-spec";

/**
 * Which host paths a container may get, checked before any container is created. An allowlist: a
 * bind (or an overlay's layers) must lie inside one of `roots` — the data dir's own folders that
 * containers use, and a project's directory — or be one of `readOnlyPaths` exactly, mounted
 * read-only (the host CA bundle, the Codex binary's folder, the bridge scripts). Paths are compared
 * after resolving symlinks, so a link inside the data dir that points at /etc does not pass.
 */
export interface MountPolicy {
  roots: string[];
  readOnlyPaths: string[];
}

/** The data dir's folders whose contents containers mount (see src/server/core/storage/data-dir.ts). */
export const DATA_DIR_MOUNT_FOLDERS = [
  "workspaces",
  "snapshots",
  "studies",
  "trials",
  "gateway",
  "dependencies",
  "caches",
  "sessions",
] as const;

export function dataDirMountPolicy(options: {
  dataDir: string;
  projectDirs?: string[];
  readOnlyPaths?: string[];
}): MountPolicy {
  return {
    roots: [
      ...DATA_DIR_MOUNT_FOLDERS.map((folder) => path.join(options.dataDir, folder)),
      ...(options.projectDirs ?? []),
    ],
    readOnlyPaths: options.readOnlyPaths ?? [],
  };
}

/** Host folders no container gets when the runtime was given no policy (a runtime without a data dir). */
const SYSTEM_FOLDERS = [
  "/etc",
  "/proc",
  "/sys",
  "/dev",
  "/boot",
  "/root",
  "/run",
  "/var/run",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/var/lib/docker",
];

/** Why `hostPath` is not a usable mount source, or null: absolute, normalised, no `..`, no NUL. */
export function hostPathProblem(hostPath: string): string | null {
  if (hostPath.includes("\0")) return "it contains a NUL byte";
  if (!path.isAbsolute(hostPath)) return "it is not an absolute path";
  if (hostPath.split("/").includes("..")) return 'it contains a ".." segment';
  if (/[,:]/.test(hostPath)) return 'it contains "," or ":", which Docker reads as mount options';
  return null;
}

/** The path with every symlink on its way resolved; a missing tail is kept as written. */
function resolveReal(hostPath: string): string {
  let existing = path.normalize(hostPath);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return path.join(existing, ...rest);
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function refuse(hostPath: string, containerPath: string, why: string, fix: string): never {
  throw new Error(`Refusing to mount ${JSON.stringify(hostPath)} at ${containerPath}: ${why}. ${fix}`);
}

function sourcesOf(mount: Mount): string[] {
  return mount.overlay
    ? [mount.hostPath, ...(mount.overlay.lowerDirs ?? []), mount.overlay.upperDir, mount.overlay.workDir]
    : [mount.hostPath];
}

function checkAgainstPolicy(mount: Mount, source: string, policy: MountPolicy): void {
  const real = resolveReal(source);
  if (policy.roots.some((root) => isInside(real, resolveReal(root)))) return;
  const readOnlyExact =
    !mount.overlay && mount.readOnly && policy.readOnlyPaths.some((allowed) => resolveReal(allowed) === real);
  if (readOnlyExact) return;
  refuse(
    source,
    mount.containerPath,
    `containers get only folders of the data dir (${policy.roots.join(", ") || "none configured"}) and a project's directory${policy.readOnlyPaths.length > 0 ? `, plus ${policy.readOnlyPaths.join(", ")} read-only` : ""}`,
    "Mount something inside the data dir instead (a workspace, a trial's folder), or add the project that holds it.",
  );
}

function checkWithoutPolicy(mount: Mount, source: string, hostHome: string, readOnlyPaths: string[]): void {
  const real = resolveReal(source);
  if (!mount.overlay && mount.readOnly && readOnlyPaths.some((allowed) => resolveReal(allowed) === real)) return;
  if (real === "/" || real === "/home" || real === resolveReal(hostHome))
    refuse(
      source,
      mount.containerPath,
      "containers never get a host home directory or the host root",
      "Mount a folder of the data dir.",
    );
  if (SYSTEM_FOLDERS.some((folder) => isInside(real, folder)))
    refuse(
      source,
      mount.containerPath,
      "containers never get the host's system folders",
      "Mount a folder of the data dir.",
    );
}

/**
 * Refuses, with a message that says why, any mount outside the policy, the Docker socket anywhere,
 * and sources that are relative, contain `..`, NUL, "," or ":". Without a policy (a runtime that was
 * given no data dir) it still refuses the Docker socket, the host root, home and system folders.
 */
export function checkMounts(
  mounts: readonly Mount[],
  options: { policy: MountPolicy | null; hostHome: string; readOnlyPaths?: string[] },
): void {
  for (const mount of mounts) {
    for (const source of sourcesOf(mount)) {
      const problem = hostPathProblem(source);
      if (problem) refuse(source, mount.containerPath, problem, "Give an absolute path inside the data dir.");
      if (source.endsWith("/docker.sock") || resolveReal(source).endsWith("/docker.sock"))
        refuse(source, mount.containerPath, "containers never get the Docker socket", "Remove this mount.");
      const readOnlyPaths = [...(options.readOnlyPaths ?? []), ...(options.policy?.readOnlyPaths ?? [])];
      if (options.policy) checkAgainstPolicy(mount, source, { ...options.policy, readOnlyPaths });
      else checkWithoutPolicy(mount, source, options.hostHome, readOnlyPaths);
    }
  }
}
