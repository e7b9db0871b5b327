// The project's layers, enforced on every import (static, dynamic and re-exports). Paths are relative
// to the repository root; a relative specifier is resolved against the importing file, a bare one
// (a package) is matched as written. Each layer: which files it binds, which imports they may not make.
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const WEB_ONLY =
  /^src\/server\/(studies|http|trpc|projects|access|apply|reports|review|db|workers)\/|^src\/server\/(app-services|web-core|system\/system-service)$|\.queries$|^next(\/|$)|^@trpc\//;

export const LAYERS = [
  {
    importer: /^(src|worker|test|e2e|bench)\//,
    except: /^src\/server\/db\/|\.queries\.ts$|^src\/generated\//,
    target: /^@prisma\/|^src\/generated\/prisma(\/|$)/,
    message: "Only src/server/core/db/ and *.queries.ts modules touch Prisma; call a queries module instead.",
  },
  {
    importer: /^(src|worker|test|e2e|bench)\//,
    except: /^src\/server\/jobs\/|^worker\//,
    target: /^bullmq$/,
    message: "BullMQ is wrapped once in src/server/core/jobs/ (JobQueue); only jobs/ and worker/ import it.",
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
    importer: /^worker\/|^src\/server\/(trials|runtime|agents|gateway|verdicts|mock-model|artifacts)\//,
    except: /\.test\.ts$/,
    target: WEB_ONLY,
    message: "Worker-side modules never import web-only ones (database, studies, HTTP, tRPC, Next.js).",
  },
];

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
    if (layers.length === 0) return {};
    const check = (node, source, typeOnly) => {
      if (typeof source?.value !== "string") return;
      const target = targetOf(source.value, context.filename);
      for (const layer of layers) {
        if (layer.typesAllowed && typeOnly) continue;
        if (layer.target.test(target)) context.report({ node, message: `${layer.message} (${source.value})` });
      }
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
