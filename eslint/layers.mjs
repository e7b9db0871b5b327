// The project's layers, enforced on every import (static, dynamic and re-exports). Paths are relative
// to the repository root; a relative specifier is resolved against the importing file, a bare one
// (a package) is matched as written.
//
// src/server is grouped by the process that runs it (docs/architecture.md):
//   core/    both processes (the dashboard and the worker): infrastructure and the shared domain
//   worker/  only the worker process: a trial's steps and its verdict
//   web/     only the dashboard process: services behind tRPC, HTTP, sessions, wiring
// Each group's folders are listed lowest first. A module imports its own folder, an earlier folder of
// its group, or core/; never a later folder, never worker/ ↔ web/, never up from core/. Import
// cycles between modules (type-only imports included) are refused too.
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

export const SERVER_ORDER = {
  core: [
    "errors",
    "locks",
    "storage",
    "db",
    "redis",
    "credentials",
    "events",
    "runtime",
    "snapshots",
    "git",
    "workspaces",
    "diffs",
    "gateway",
    "mock-model",
    "agents",
    "jobs",
    "dependencies",
    "environments",
    "trial-records",
    "artifacts",
    "diagnostics",
  ],
  worker: ["verdicts", "trials"],
  web: [
    "access",
    "projects",
    "events",
    "snapshots",
    "environments",
    "cleanup",
    "reports",
    "studies",
    "apply",
    "workspaces",
    "review",
    "branches",
    "system",
    "sessions",
    "workers",
    "demo",
    "setup",
    "removal",
    "pages",
    "wiring",
    "trpc",
    "mcp",
    "http",
  ],
};

const SERVER_FOLDER = /^src\/server\/([^/]+)\/([^/]+)\//;
const WEB_ONLY = /^src\/server\/web\/|\.queries$|-service$|^next(\/|$)|^@trpc\//;

export const LAYERS = [
  {
    importer: /^(src|worker|test|e2e|bench)\//,
    except: /^src\/server\/core\/db\/|\.queries\.ts$|^src\/generated\//,
    target: /^@prisma\/|^src\/generated\/prisma(\/|$)/,
    message: "Only src/server/core/db/ and *.queries.ts modules touch Prisma; call a queries module instead.",
  },
  {
    importer: /^(src|worker|test|e2e|bench)\//,
    except: /^src\/server\/core\/jobs\/|^worker\//,
    target: /^bullmq$/,
    message: "BullMQ is wrapped once in src/server/core/jobs/ (JobQueue); only jobs/ and worker/ import it.",
  },
  {
    importer: /^src\/server\//,
    except: /^src\/server\/(core\/(redis|events)|web\/(events|wiring))\/|\.test\.ts$/,
    target: /^ioredis$/,
    message:
      "Redis is infrastructure: only the redis and events folders and the wiring use ioredis; take a port (publish, stop flags, …) built in the wiring.",
  },
  {
    importer: /^src\/server\//,
    target: /^src\/(app|cli)\//,
    message: "Domain and transport modules under src/server/ never import the pages (src/app) or the CLI.",
  },
  {
    importer: /^src\/lib\//,
    target: /^src\/(server|app|cli|shared)\/|^worker\//,
    message: "src/lib/ is a neutral library: it imports only Node.js and npm packages.",
  },
  {
    importer: /^src\/shared\//,
    target: /^src\/(server|app|cli|lib)\/|^worker\//,
    message: "src/shared/ runs in the browser and on the server: it imports neither.",
  },
  {
    importer: /^src\/app\//,
    target: /^src\/(server|cli|lib)\/|^worker\//,
    typesAllowed: true,
    message: "Pages reach the server through tRPC: import only types from src/server (e.g. AppRouter).",
  },
  {
    importer: /^worker\/|^src\/server\/(worker|core)\//,
    except: /\.test\.ts$/,
    target: WEB_ONLY,
    message:
      "Worker-side and core modules never import web-only ones (src/server/web, *.queries, *-service, Next.js, tRPC).",
  },
];

const RANK = new Map(
  Object.entries(SERVER_ORDER).flatMap(([group, folders]) =>
    folders.map((folder, index) => [`${group}/${folder}`, index]),
  ),
);

/** Why `importer` may not import `target` (both repository-relative, without extension), or null. */
export function orderViolation(importer, target) {
  const from = importer.match(SERVER_FOLDER);
  if (!from) return null;
  const to = target.match(SERVER_FOLDER);
  if (!to) return null;
  const [, fromGroup, fromFolder] = from;
  const [, toGroup, toFolder] = to;
  const fromKey = `${fromGroup}/${fromFolder}`;
  const toKey = `${toGroup}/${toFolder}`;
  for (const key of [fromKey, toKey])
    if (!RANK.has(key)) return `src/server/${key} is in no layer: add it to SERVER_ORDER in eslint/layers.mjs.`;
  if (fromKey === toKey) return null;
  if (fromGroup === toGroup) {
    if (RANK.get(toKey) < RANK.get(fromKey)) return null;
    return `src/server/${fromKey} may not import the later layer src/server/${toKey}: move the shared part down (order: eslint/layers.mjs SERVER_ORDER).`;
  }
  if (toGroup === "core") return null;
  if (fromGroup === "core")
    return `core/ runs in both processes and never imports src/server/${toGroup}/: move what ${fromKey} needs into core/ or take it as a port.`;
  return `src/server/${fromGroup}/ and src/server/${toGroup}/ run in different processes and never import each other: move the shared part into core/.`;
}

const SOURCE = /\.(ts|tsx)$/;
const SPECIFIER = /(?:^|[\s;])(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function resolveModule(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")])
    if (SOURCE.test(candidate) && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return null;
}

/** The relative imports of every non-test module under src/server, src/cli and worker/, read once per lint run. */
let graph = null;
function importGraph() {
  if (graph) return graph;
  graph = new Map();
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SOURCE.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        const imports = new Set();
        const text = fs.readFileSync(full, "utf8");
        for (const match of text.matchAll(SPECIFIER)) {
          const specifier = match[1] ?? match[2];
          if (!specifier.startsWith(".")) continue;
          const resolved = resolveModule(full, specifier);
          if (resolved) imports.add(resolved);
        }
        graph.set(full, imports);
      }
    }
  };
  for (const dir of ["src/server", "src/cli", "src/shared", "src/lib", "worker"]) walk(path.join(ROOT, dir));
  return graph;
}

/** A path of imports from `start` back to `target` (both absolute), or null. */
function pathBack(start, target, imports) {
  const seen = new Set([start]);
  const queue = [[start]];
  while (queue.length > 0) {
    const trail = queue.shift();
    const last = trail[trail.length - 1];
    for (const next of imports.get(last) ?? []) {
      if (next === target) return trail;
      if (seen.has(next) || !imports.has(next)) continue;
      seen.add(next);
      queue.push([...trail, next]);
    }
  }
  return null;
}

function targetOf(specifier, filename) {
  if (!specifier.startsWith(".")) return specifier;
  const resolved = path.relative(ROOT, path.resolve(path.dirname(filename), specifier));
  return resolved.replace(/\.(ts|tsx|mjs|js)$/, "");
}

const rule = {
  meta: { type: "problem", schema: [], docs: { description: "Enforces the import layers in eslint/layers.mjs" } },
  create(context) {
    const importer = path.relative(ROOT, context.filename);
    const layers = LAYERS.filter((layer) => layer.importer.test(importer) && !layer.except?.test(importer));
    const isTest = /\.test\.tsx?$/.test(importer);
    const inCycleScope = !isTest && /^(src\/(server|cli|shared|lib)|worker)\//.test(importer);
    const check = (node, source, typeOnly) => {
      if (typeof source?.value !== "string") return;
      const target = targetOf(source.value, context.filename);
      for (const layer of layers) {
        if (layer.typesAllowed && typeOnly) continue;
        if (layer.target.test(target)) context.report({ node, message: `${layer.message} (${source.value})` });
      }
      if (isTest || !source.value.startsWith(".")) return;
      const order = orderViolation(importer, target);
      if (order) context.report({ node, message: `${order} (${source.value})` });
      if (!inCycleScope) return;
      const resolved = resolveModule(context.filename, source.value);
      const imports = importGraph();
      if (!resolved || !imports.has(context.filename)) return;
      const back = pathBack(resolved, context.filename, imports);
      if (back)
        context.report({
          node,
          message: `Import cycle: ${[importer, ...back.map((file) => path.relative(ROOT, file)), importer].join(" → ")}. Move the shared part (often a *Deps type) to the module that uses it, or into a lower module.`,
        });
    };
    const allTypes = (node) =>
      node.importKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((specifier) => specifier.importKind === "type"));
    return {
      ImportDeclaration: (node) => check(node, node.source, allTypes(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, node.exportKind === "type"),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === "type"),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};

export default { rules: { boundaries: rule } };
