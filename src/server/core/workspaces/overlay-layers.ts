import fs, { constants, type Stats } from "node:fs";
import { getAttributeSync, setAttributeSync } from "@napi-rs/xattr";
import { fromBytes, joinPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";

/**
 * The merged view of overlayfs layers, read on the host without mounting anything: the one place that
 * knows overlayfs' on-disk rules. `layers` are directories, topmost first (a workspace's upper layer,
 * then the snapshot's tree; an evaluation adds its own upper on top). A name is looked up from the top:
 * the first layer that has it decides; a whiteout (a character device 0/0, which overlayfs writes for a
 * deletion) hides it in every layer below; a non-directory hides everything below it; directories merge,
 * down to the first one marked opaque (`user.overlay.opaque=y`: it was deleted and made again, so what
 * lower layers had there is gone). Workspaces are mounted with `userxattr`, so the marks are `user.`
 * attributes any reader can see (`trusted.` ones only root could), and with no redirects or metacopy,
 * so every changed file's bytes are whole in the upper layer.
 */
export const OPAQUE_XATTR = "user.overlay.opaque";

export type LayerEntryType = "dir" | "file" | "symlink" | "special";

export interface LayerHit {
  /** Index into `layers` of the layer the entry comes from. */
  layer: number;
  type: LayerEntryType;
  stat: Stats;
}

/** Why a lookup found nothing: absent, or a parent on the way is not a directory in the merged view. */
export type LayerMiss = "missing" | "through-non-directory";

export function isWhiteout(stat: Stats): boolean {
  return stat.isCharacterDevice() && stat.rdev === 0;
}

export function entryType(stat: Stats): LayerEntryType {
  if (stat.isDirectory()) return "dir";
  if (stat.isFile()) return "file";
  if (stat.isSymbolicLink()) return "symlink";
  return "special";
}

/**
 * Whether a directory is opaque. The attribute is read through /proc/self/fd/N/. of the open directory,
 * so names that are not UTF-8 work and a symlink swapped in is never followed (O_NOFOLLOW).
 */
export function isOpaqueDir(fsPath: Buffer | string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(fsPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    return getAttributeSync(`/proc/self/fd/${fd}/.`, OPAQUE_XATTR)?.toString() === "y";
  } finally {
    fs.closeSync(fd);
  }
}

/** Marks a directory opaque (an evaluation hides what lower layers have there). */
export function markOpaque(fsPath: Buffer | string): void {
  const fd = fs.openSync(fsPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    setAttributeSync(`/proc/self/fd/${fd}/.`, OPAQUE_XATTR, "y");
  } finally {
    fs.closeSync(fd);
  }
}

function lstatOrNull(fsPath: Buffer): Stats | null {
  try {
    return fs.lstatSync(fsPath);
  } catch {
    return null;
  }
}

/** One name in the directories of `active` layers: its entry and the layers its directory merges from. */
function resolveName(layers: readonly string[], active: readonly number[], rel: BytePath) {
  let hit: LayerHit | null = null;
  const merged: number[] = [];
  for (const layer of active) {
    const fsPath = toFsPath(layers[layer] ?? "", rel);
    const stat = lstatOrNull(fsPath);
    if (!stat) continue;
    if (isWhiteout(stat)) break;
    hit ??= { layer, type: entryType(stat), stat };
    if (hit.type !== "dir" || !stat.isDirectory()) break;
    merged.push(layer);
    if (isOpaqueDir(fsPath)) break;
  }
  return { hit, merged };
}

export interface LayeredTree {
  readonly layers: readonly string[];
  /** The entry at `rel` in the merged view. */
  lookup(rel: BytePath): LayerHit | LayerMiss;
  /** The merged directory at `rel`: each name once, with the entry that wins. */
  readdir(rel: BytePath): { name: BytePath; hit: LayerHit }[];
}

export function openLayeredTree(layers: readonly string[]): LayeredTree {
  const all = layers.map((_, index) => index);

  /** The layers whose directory at `rel` make up the merged one (null: not a directory there). */
  function directoryLayers(rel: BytePath): number[] | LayerMiss {
    let active = all;
    let prefix = "";
    for (const segment of rel === "" ? [] : rel.split("/")) {
      prefix = joinPath(prefix, segment);
      const { hit, merged } = resolveName(layers, active, prefix);
      if (!hit) return "missing";
      if (hit.type !== "dir") return "through-non-directory";
      active = merged;
    }
    return active;
  }

  return {
    layers,
    lookup(rel) {
      const parent = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "";
      const active = directoryLayers(parent);
      if (typeof active === "string") return active;
      return resolveName(layers, active, rel).hit ?? "missing";
    },
    readdir(rel) {
      const active = directoryLayers(rel);
      if (typeof active === "string") return [];
      const seen = new Set<BytePath>();
      const result: { name: BytePath; hit: LayerHit }[] = [];
      for (const layer of active) {
        let names: Buffer[];
        try {
          names = fs.readdirSync(toFsPath(layers[layer] ?? "", rel), { encoding: "buffer" });
        } catch {
          continue;
        }
        for (const raw of names) {
          const name = fromBytes(raw);
          if (seen.has(name)) continue;
          seen.add(name);
          const { hit } = resolveName(layers, active.slice(active.indexOf(layer)), joinPath(rel, name));
          if (hit) result.push({ name, hit });
        }
      }
      return result.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
