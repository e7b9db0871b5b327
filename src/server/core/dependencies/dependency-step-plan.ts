import fs from "node:fs/promises";
import path from "node:path";
import type { DependencyKind, RuntimeRequest } from "../../../shared/dependency-schemas";
import type { Mount } from "../runtime/container-spec";
import { dataDirPaths } from "../storage/data-dir";
import { withoutRootLifecycle } from "./root-lifecycle";
import { RUNTIME_PRESENT_SCRIPT, runtimeScript } from "./runtime-script";

/** What a dependency build job carries besides the command (see environment-jobs.ts). */
export interface DependencyBuild {
  /** The dependency folder's id (dependencies/<id>/); its tree/ is /workspace while the step runs. */
  dirId: string;
  kind: DependencyKind;
  outputs: string[];
  /** Runtimes the manifests declare (runtime-declarations.ts); absent: none. */
  runtimes?: RuntimeRequest[];
}

/** The container side of a dependency step: the script, its mounts, its environment and working directory. */
export interface DependencyStepPlan {
  script: string;
  mounts: Mount[];
  env: Record<string, string>;
  workingDir: string;
}

const WORKSPACE = "/workspace";

/**
 * Package-manager caches mounted into a project's dependency steps (data dir → container; one set per
 * project, so a step's `postinstall`, root in its container, cannot poison another project's), outside /root: a
 * mount point under /root would stay in the committed image as root's folder in the home the build
 * hands to the host user (container-user.ts), and npm refuses a cache folder it cannot write.
 */
const CACHE_ROOT = "/var/cache/invariant";
const NPM = { name: "npm", containerPath: `${CACHE_ROOT}/npm` };
const PNPM = { name: "pnpm", containerPath: `${CACHE_ROOT}/pnpm-store` };
const YARN = { name: "yarn", containerPath: `${CACHE_ROOT}/yarn` };
const PIP = { name: "pip", containerPath: `${CACHE_ROOT}/pip` };
const CACHES: Record<DependencyKind, { name: string; containerPath: string }[]> = {
  npm: [NPM],
  pnpm: [NPM, PNPM],
  yarn: [NPM, YARN],
  python: [PIP],
  go: [],
  cargo: [],
  command: [NPM, PIP],
};

/** Debian's downloaded packages, kept too: installing a toolchain again costs no downloads. */
const APT_CACHE = { name: "apt", containerPath: "/var/cache/apt/archives" };

/** A shell function: `need CMD PACKAGE...` installs the Debian packages when CMD is missing. */
const NEED = [
  "need() {",
  '  cmd="$1"; shift',
  '  if command -v "$cmd" >/dev/null 2>&1; then return 0; fi',
  '  if ! command -v apt-get >/dev/null 2>&1; then echo "$cmd is missing in this image and there is no apt-get to install it: use a base image that has it, or install it with Prepare with a command." >&2; exit 12; fi',
  '  echo "$cmd is missing in this image: installing $* from Debian (apt-get)"',
  '  apt-get update -q && apt-get install -y -q --no-install-recommends "$@"',
  "}",
].join("\n");

const TOOLCHAIN: Record<DependencyKind, string> = {
  npm: "need npm npm\nnode --version\nnpm --version",
  pnpm: "need npm npm\nnode --version\nnpm --version",
  yarn: "need npm npm\nnode --version\nnpm --version",
  python: [
    "need python3 python3 python3-venv python3-pip",
    "python3 -c 'import ensurepip' >/dev/null 2>&1 || { apt-get update -q && apt-get install -y -q --no-install-recommends python3-venv python3-pip; }",
    "python3 --version",
  ].join("\n"),
  go: "need go golang-go\ngo version",
  cargo: "need cargo cargo\ncargo --version",
  command: "true",
};

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The step's script: toolchain and declared runtimes, the command (from $INVARIANT_DEPENDENCY_COMMAND), then
 * the outputs' check and the runtimes' report.
 */
export function dependencyScript(options: {
  kind: DependencyKind;
  outputs: string[];
  runtimes?: readonly RuntimeRequest[];
}): string {
  const checks = options.outputs.map(
    (output) =>
      `[ -d ${quote(`${WORKSPACE}/${output}`)} ] || { echo ${quote(`The command left no ${output} folder in the project. Make it install there, or change the step's outputs.`)} >&2; exit 13; }`,
  );
  const sizes = options.outputs.map((output) => `du -sh ${quote(`${WORKSPACE}/${output}`)} 2>/dev/null || true`);
  return [
    "set -eu",
    NEED,
    'echo "[1/3] checking the toolchain"',
    TOOLCHAIN[options.kind],
    runtimeScript(options.runtimes ?? []),
    'echo "[2/3] installing the dependencies: $INVARIANT_DEPENDENCY_COMMAND"',
    `cd ${WORKSPACE}`,
    ["npm", "pnpm", "yarn"].includes(options.kind)
      ? withoutRootLifecycle('sh -c "$INVARIANT_DEPENDENCY_COMMAND"')
      : 'sh -c "$INVARIANT_DEPENDENCY_COMMAND"',
    'echo "[3/3] checking what it installed"',
    ...checks,
    ...sizes,
    RUNTIME_PRESENT_SCRIPT,
  ].join("\n");
}

/**
 * Plans a dependency step on this worker: /workspace is the dependency folder (holding the project's
 * manifests), the project's own package-manager caches are mounted from the data dir, and the command is
 * passed in the environment. Creates the cache folders.
 */
export async function planDependencyStep(options: {
  dataDir: string;
  /** Whose caches the step gets (never another project's). */
  projectId: string;
  build: DependencyBuild;
  command: string;
}): Promise<DependencyStepPlan> {
  const paths = dataDirPaths(options.dataDir);
  const tree = paths.dependencyDir(options.build.dirId).tree;
  await fs.access(tree).catch(() => {
    throw new Error(`The dependency folder ${tree} is missing: this worker does not share the dashboard's data dir.`);
  });
  const caches = [...CACHES[options.build.kind], APT_CACHE];
  const mounts: Mount[] = [{ hostPath: tree, containerPath: WORKSPACE, readOnly: false }];
  for (const cache of caches) {
    const hostPath = paths.cache({ projectId: options.projectId, name: cache.name });
    await fs.mkdir(cache.name === "apt" ? path.join(hostPath, "partial") : hostPath, { recursive: true });
    // shared by the project's dependency steps, even at the same time
    mounts.push({ hostPath, containerPath: cache.containerPath, readOnly: false, shared: true });
  }
  return {
    script: dependencyScript(options.build),
    mounts,
    env: {
      HOME: "/root",
      CI: "1",
      DEBIAN_FRONTEND: "noninteractive",
      INVARIANT_DEPENDENCY_COMMAND: options.command,
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
      // a lockfile pins every package by hash: what the cache holds is used without asking the registry again
      npm_config_prefer_offline: "true",
      npm_config_cache: NPM.containerPath,
      npm_config_store_dir: PNPM.containerPath,
      YARN_CACHE_FOLDER: YARN.containerPath,
      PIP_CACHE_DIR: PIP.containerPath,
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      // Go 1.21+ would download the toolchain go.mod names; the step reports the version it has instead
      GOTOOLCHAIN: "local",
    },
    workingDir: WORKSPACE,
  };
}
