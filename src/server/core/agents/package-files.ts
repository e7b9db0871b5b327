import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { packageRoot } from "../../../lib/package-info";
import { locateCodexBinary, type CodexBinary } from "./codex-binary";

/** What containers mount from the worker's own package, as paths inside the data dir. */
export interface PackageFiles {
  /** The gateway bridges (gateway-bridge.pl, gateway-bridge.cjs), mounted read-only into agent containers. */
  bridgeDir: string;
  /** The Codex binary, mounted read-only into base environment builds; null when the package has none. */
  codex: CodexBinary | null;
}

const BRIDGES = ["gateway-bridge.pl", "gateway-bridge.cjs"];

/** Moves a folder built aside into place; one another worker put there first wins (same content). */
function publishDir(tmp: string, target: string): void {
  try {
    fs.renameSync(tmp, target);
  } catch (error) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(target)) throw error;
  }
}

/** A hard link where the package and the data dir share a filesystem (no space used), else a copy. */
function linkOrCopy(source: string, target: string): void {
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target, fs.constants.COPYFILE_FICLONE);
  }
  fs.chmodSync(target, 0o755);
}

function stageBridges(root: string, assetsDir: string): string {
  const hash = createHash("sha256");
  for (const name of BRIDGES)
    hash
      .update(name)
      .update("\0")
      .update(fs.readFileSync(path.join(assetsDir, name)));
  const target = path.join(root, `bridge-${hash.digest("hex").slice(0, 16)}`);
  if (fs.existsSync(target)) return target;
  const tmp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(tmp, { recursive: true });
  for (const name of BRIDGES) fs.copyFileSync(path.join(assetsDir, name), path.join(tmp, name));
  publishDir(tmp, target);
  return target;
}

function stageCodex(root: string, codex: CodexBinary): CodexBinary {
  const size = fs.statSync(codex.path).size;
  const target = path.join(root, `codex-${codex.version}-${size}`);
  const binary = path.join(target, "codex");
  if (fs.statSync(binary, { throwIfNoEntry: false })?.size !== size) {
    const tmp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
    fs.mkdirSync(tmp, { recursive: true });
    linkOrCopy(codex.path, path.join(tmp, "codex"));
    fs.rmSync(target, { recursive: true, force: true });
    publishDir(tmp, target);
  }
  return { ...codex, path: binary };
}

/**
 * Stages what containers mount from the worker's package into `<data dir>/caches/package-files/`.
 * A mount's source is resolved by the Docker engine on its own host, so a worker that runs in a
 * container (Compose) can hand the engine only paths both see: the data dir, bind-mounted at the
 * same path on the host (docs/compose.md); the web process's terminal sessions mount the bridges too. Its own package lives in its image, out of the engine's
 * sight. Staged once per content (folders named by hash or version), so workers of different
 * versions can share a data dir; the Codex binary is hard-linked where it can be (no space used).
 */
export function stagePackageFiles(options: {
  dataDir: string;
  /** The package whose files are staged (default: this one) and its Codex binary (default: its own). */
  packageRoot?: string;
  codex?: CodexBinary | null;
}): PackageFiles {
  const root = path.join(options.dataDir, "caches", "package-files");
  fs.mkdirSync(root, { recursive: true });
  const codex = options.codex === undefined ? locateCodexBinary() : options.codex;
  return {
    bridgeDir: stageBridges(root, path.join(options.packageRoot ?? packageRoot(), "assets")),
    codex: codex ? stageCodex(root, codex) : null,
  };
}
