import { ALWAYS_EXCLUDED } from "../../../lib/files/exclusion-rules";
import type { DependencyStep } from "../../../shared/dependency-schemas";

/**
 * The dependency step a project's manifests suggest, from the names of the files at its root.
 * Lockfiles win over bare manifests; the first ecosystem found is the one proposed (a project with
 * two edits its step to run both).
 */
export function detectDependencyStep(rootFiles: readonly string[]): DependencyStep | null {
  const has = (name: string) => rootFiles.includes(name);
  if (has("package-lock.json") || has("npm-shrinkwrap.json")) {
    const lock = has("npm-shrinkwrap.json") ? "npm-shrinkwrap.json" : "package-lock.json";
    return { kind: "npm", command: "npm ci", outputs: ["node_modules"], manifests: ["package.json", lock] };
  }
  if (has("pnpm-lock.yaml"))
    return {
      kind: "pnpm",
      command: "npm install -g pnpm@9 && pnpm install --frozen-lockfile",
      outputs: ["node_modules"],
      manifests: ["package.json", "pnpm-lock.yaml", ...(has("pnpm-workspace.yaml") ? ["pnpm-workspace.yaml"] : [])],
    };
  if (has("yarn.lock"))
    return {
      kind: "yarn",
      command: "npm install -g yarn@1 && yarn install --frozen-lockfile",
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
