import { ALWAYS_EXCLUDED } from "../../../lib/files/exclusion-rules";
import type { DependencyStep } from "../../../shared/dependency-schemas";
import { RUNTIME_FILES } from "./runtime-declarations";

/**
 * The dependency step a project's manifests suggest, from the names of the files at its root (and
 * package.json's `packageManager`, which pins the pnpm or yarn version). Lockfiles win over bare manifests;
 * the first ecosystem found is the one proposed (a project with two edits its step to run both). Files that
 * declare a runtime (.nvmrc, .python-version …) join the manifests: the step installs or reports what they ask for;
 * so do tarballs package.json installs from the project (`file:vendor/x.tgz`).
 */
export function detectDependencyStep(
  rootFiles: readonly string[],
  options: { packageManager?: { name: string; version: string } | null; localTarballs?: readonly string[] } = {},
): DependencyStep | null {
  const step = detectByManifests(rootFiles, options.packageManager ?? null);
  if (!step) return null;
  const declarations = RUNTIME_FILES.filter((name) => rootFiles.includes(name) && !step.manifests.includes(name));
  const tarballs = ["npm", "pnpm", "yarn"].includes(step.kind) ? (options.localTarballs ?? []) : [];
  return { ...step, manifests: [...step.manifests, ...declarations, ...tarballs] };
}

/** The pnpm or yarn install command, at the version packageManager pins (else pnpm 9, yarn 1). */
function packageManagerInstall(name: "pnpm" | "yarn", pinned: { name: string; version: string } | null): string {
  const version = pinned?.name === name ? pinned.version : null;
  if (name === "pnpm") return `npm install -g pnpm@${version ?? "9"} && pnpm install --frozen-lockfile`;
  // yarn 2+ ("berry") is not published as the yarn package: corepack installs the version package.json names
  if (version && !version.startsWith("1."))
    return "npm install -g corepack && corepack enable && yarn install --immutable";
  return `npm install -g yarn@${version ?? "1"} && yarn install --frozen-lockfile`;
}

function detectByManifests(
  rootFiles: readonly string[],
  packageManager: { name: string; version: string } | null,
): DependencyStep | null {
  const has = (name: string) => rootFiles.includes(name);
  if (has("package-lock.json") || has("npm-shrinkwrap.json")) {
    const lock = has("npm-shrinkwrap.json") ? "npm-shrinkwrap.json" : "package-lock.json";
    return { kind: "npm", command: "npm ci", outputs: ["node_modules"], manifests: ["package.json", lock] };
  }
  if (has("pnpm-lock.yaml"))
    return {
      kind: "pnpm",
      command: packageManagerInstall("pnpm", packageManager),
      outputs: ["node_modules"],
      manifests: ["package.json", "pnpm-lock.yaml", ...(has("pnpm-workspace.yaml") ? ["pnpm-workspace.yaml"] : [])],
    };
  if (has("yarn.lock"))
    return {
      kind: "yarn",
      command: packageManagerInstall("yarn", packageManager),
      outputs: ["node_modules"],
      manifests: ["package.json", "yarn.lock"],
    };
  if (has("package.json"))
    return { kind: "npm", command: "npm install", outputs: ["node_modules"], manifests: ["package.json"] };
  const python = detectPython(rootFiles);
  if (python) return python;
  if (has("go.mod"))
    return {
      kind: "go",
      command: "go mod download",
      outputs: [],
      manifests: ["go.mod", ...(has("go.sum") ? ["go.sum"] : [])],
    };
  if (has("Cargo.toml"))
    return {
      kind: "cargo",
      command: "cargo fetch",
      outputs: [],
      manifests: ["Cargo.toml", ...(has("Cargo.lock") ? ["Cargo.lock"] : [])],
    };
  return null;
}

/** Reads [project].dependencies and every optional-dependencies group of pyproject.toml (Python 3.11's tomllib). */
const PYPROJECT_REQUIREMENTS =
  "python3 -c \"import tomllib; p = tomllib.load(open('pyproject.toml', 'rb')).get('project', {}); print('\\n'.join(p.get('dependencies', []) + [d for g in p.get('optional-dependencies', {}).values() for d in g]))\" > /tmp/pyproject-requirements.txt";

function detectPython(rootFiles: readonly string[]): DependencyStep | null {
  const requirements = rootFiles.filter((name) => /^requirements[\w.-]*\.txt$/.test(name)).sort();
  const pyproject = rootFiles.includes("pyproject.toml");
  if (!requirements.length && !pyproject) return null;
  const venv = "python3 -m venv .venv";
  if (requirements.length)
    return {
      kind: "python",
      command: `${venv} && .venv/bin/pip install ${requirements.map((file) => `-r ${file}`).join(" ")}`,
      outputs: [".venv"],
      manifests: requirements,
    };
  const locks = ["poetry.lock", "uv.lock", "pdm.lock"].filter((name) => rootFiles.includes(name));
  return {
    kind: "python",
    command: `${venv} && ${PYPROJECT_REQUIREMENTS} && .venv/bin/pip install -r /tmp/pyproject-requirements.txt`,
    outputs: [".venv"],
    manifests: ["pyproject.toml", ...locks],
  };
}

/** Folder names a dependency output may have: those every snapshot, diff and apply leaves out. */
export const DEPENDENCY_FOLDER_NAMES: readonly string[] = ALWAYS_EXCLUDED.filter(
  (rule) => rule.category === "dependencies" && /^[\w.-]+\/$/.test(rule.pattern),
).map((rule) => rule.pattern.slice(0, -1));

/**
 * Why an output folder cannot be one (null: it can). Outputs are mounted over the workspace, so
 * they must be folders that snapshots, diffs and applies always leave out — otherwise installed
 * files would show up as an agent's changes.
 */
export function outputFolderProblem(output: string): string | null {
  const name = output.split("/").at(-1) ?? output;
  if (DEPENDENCY_FOLDER_NAMES.includes(name)) return null;
  return `${output} cannot hold installed dependencies: only folders that snapshots and diffs always leave out can (${DEPENDENCY_FOLDER_NAMES.join(", ")}). Install into one of those, for example .venv or node_modules.`;
}
