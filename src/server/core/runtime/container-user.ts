import type { ContainerSpec } from "./container-spec";

/** A numeric user and group on the host (and, without user namespaces, inside containers too). */
export interface UnixUser {
  uid: number;
  gid: number;
}

/** Who containers run as when the worker runs as root and nobody said otherwise: Debian's nobody:nogroup. */
export const STAND_IN_USER: UnixUser = { uid: 65_534, gid: 65_534 };

/**
 * What root inside a container keeps (builds, and projects with "Run as root"): what package managers
 * need — dpkg sets owners and modes (CHOWN, FOWNER, FSETID, DAC_OVERRIDE), apt drops to its `_apt` user
 * and stops its helpers (SETUID, SETGID, KILL). Not MKNOD, NET_RAW, SYS_CHROOT, SETFCAP, SETPCAP,
 * AUDIT_WRITE or NET_BIND_SERVICE, which Docker grants by default (unprivileged ports start at 0 in a
 * container's network namespace, so binding port 80 needs no capability).
 */
export const ROOT_CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"] as const;

/** Where the host user came from, for the worker's log and the docs. */
export type HostUserSource = "worker" | "setting" | "sudo" | "stand-in";

const USER_SETTING = "INVARIANT_CONTAINER_USER";

function parseIds(text: string): UnixUser | null {
  const match = /^(\d{1,10}):(\d{1,10})$/.exec(text.trim());
  return match ? { uid: Number(match[1]), gid: Number(match[2]) } : null;
}

/**
 * Whose files the containers' writes become, and so who non-root containers run as: the worker's own
 * uid:gid. A worker running as root (uid 0) has no such user — running containers "as the host user"
 * would mean root again — so it takes INVARIANT_CONTAINER_USER (uid:gid), else the user who ran sudo
 * (SUDO_UID/SUDO_GID), else nobody:nogroup (65534:65534); as root it can hand them the folders they write.
 */
export function resolveHostUser(
  options: { uid?: number; gid?: number; env?: Record<string, string | undefined> } = {},
): UnixUser & { source: HostUserSource } {
  const uid = options.uid ?? process.getuid?.() ?? STAND_IN_USER.uid;
  const gid = options.gid ?? process.getgid?.() ?? STAND_IN_USER.gid;
  const env = options.env ?? process.env;
  const setting = env[USER_SETTING];
  if (setting !== undefined && setting.trim() !== "") {
    const ids = parseIds(setting);
    if (!ids) throw new Error(`${USER_SETTING} must be uid:gid in numbers, like 1000:1000 (it is "${setting}").`);
    if (ids.uid === 0)
      throw new Error(`${USER_SETTING} cannot be root (0): turn on a project's "Run as root" setting instead.`);
    if (uid !== 0 && (ids.uid !== uid || ids.gid !== gid))
      throw new Error(
        `${USER_SETTING}=${setting}, but this worker runs as ${uid}:${gid} and can give containers only its own files: unset it, or run the worker as that user.`,
      );
    return { ...ids, source: "setting" };
  }
  if (uid !== 0) return { uid, gid, source: "worker" };
  const sudo = parseIds(`${env.SUDO_UID ?? ""}:${env.SUDO_GID ?? ""}`);
  if (sudo && sudo.uid !== 0) return { ...sudo, source: "sudo" };
  return { ...STAND_IN_USER, source: "stand-in" };
}

/** The worker's log line: who containers run as, and why. */
export function containerUserNote(user: UnixUser & { source: HostUserSource }): string {
  const because: Record<HostUserSource, string> = {
    worker: "this worker's own user",
    setting: "INVARIANT_CONTAINER_USER",
    sudo: "the user who ran sudo",
    "stand-in": "this worker runs as root; set INVARIANT_CONTAINER_USER=uid:gid to choose",
  };
  return `containers run as ${idsText(user)} (${because[user.source]})`;
}

/** Who a container runs as and what it may do. */
export interface ContainerIdentity {
  /** Docker's `User`, numeric: "uid:gid". */
  user: UnixUser;
  root: boolean;
  /** Added back after `CapDrop: ALL`. */
  capAdd: string[];
  /** A build hands /root to this user before it is committed, so later containers of that user keep HOME=/root. */
  homeOwner: UnixUser | null;
  /** Who what the container writes into the data dir belongs to afterwards. */
  filesOwner: UnixUser;
}

/**
 * The one rule for every role: builds (`prepare`: base, prepare command, dependency step) and projects with
 * "Run as root" (the default) run as root with ROOT_CAPABILITIES — what they create in our folders is handed
 * back to the host user afterwards; everything else runs as `user` — the host user, or the owner of the
 * spec's `userFrom` path — with no capabilities at all. A spec with `userFrom` (a direct session, which
 * writes the user's own project folder while it runs) never runs as root: root could leave root-owned or
 * set-uid files there that no hand-back afterwards could make safe in time.
 */
export function containerIdentity(options: { spec: ContainerSpec; user: UnixUser }): ContainerIdentity {
  const { spec, user } = options;
  const root = spec.labels.role === "prepare" || (spec.runAsRoot === true && !spec.userFrom);
  if (!root) return { user, root: false, capAdd: [], homeOwner: null, filesOwner: user };
  return {
    user: { uid: 0, gid: 0 },
    root: true,
    capAdd: [...ROOT_CAPABILITIES],
    // a project that runs as root keeps root's home as it is
    homeOwner: spec.labels.role === "prepare" && spec.runAsRoot !== true ? user : null,
    filesOwner: user,
  };
}

export function idsText(user: UnixUser): string {
  return `${user.uid}:${user.gid}`;
}

/**
 * A build's command, followed — when it succeeded — by handing /root (the environment's home) to the
 * user later containers run as. Only entries that are not already theirs are changed, and only on the
 * image's own filesystem (`-xdev`: mounted caches are left alone), so a second build changes little.
 */
export function withHomeHandover(command: string[], owner: UnixUser): string[] {
  const ids = idsText(owner);
  const script = [
    '"$@"',
    "rc=$?",
    `if [ "$rc" -eq 0 ] && [ -d /root ]; then find /root -xdev \\( ! -uid ${owner.uid} -o ! -gid ${owner.gid} \\) -exec chown -h ${ids} {} + || rc=$?; fi`,
    'exit "$rc"',
  ].join("\n");
  return ["/bin/sh", "-c", script, "invariant-build", ...command];
}
