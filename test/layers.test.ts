import path from "node:path";
import { Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import layers from "../eslint/layers.mjs";
import { REPO_ROOT } from "./support/temp";

/** Lints one made-up file at a path in the tree with the layer rule alone (the real one, as eslint.config.mjs uses it). */
function violations(file: string, code: string): string[] {
  const linter = new Linter({ configType: "flat", cwd: REPO_ROOT });
  const config = [
    {
      files: ["**/*.ts", "**/*.tsx"],
      languageOptions: { parser: tseslint.parser as Linter.Parser },
      plugins: { layers },
      rules: { "layers/boundaries": "error" as const },
    },
  ];
  return linter.verify(code, config, { filename: path.join(REPO_ROOT, file) }).map((message) => message.message);
}

describe("the import layers (eslint/layers.mjs)", () => {
  it("keeps Prisma in db/ and *.queries.ts", () => {
    const code =
      'import { PrismaClient } from "@prisma/client";\nimport { Study } from "../../generated/prisma/client";\n';
    expect(violations("src/server/web/studies/study-service.ts", code)).toEqual([
      expect.stringMatching(/^Only src\/server\/db\/ and \*\.queries\.ts modules touch Prisma/),
      expect.stringMatching(/^Only src\/server\/db\/ and \*\.queries\.ts modules touch Prisma/),
    ]);
    expect(violations("src/server/web/studies/studies.queries.ts", code)).toEqual([]);
    expect(violations("src/server/core/db/client.ts", code)).toEqual([]);
  });

  it("keeps BullMQ in jobs/ and worker/", () => {
    const code = 'import { Queue } from "bullmq";\n';
    expect(violations("src/server/web/studies/trial-dispatcher.ts", code)).toEqual([
      expect.stringMatching(/^BullMQ is wrapped once/),
    ]);
    expect(violations("src/server/core/jobs/job-queue.ts", code)).toEqual([]);
    expect(violations("worker/main.ts", code)).toEqual([]);
  });

  it("keeps src/server free of the pages and the CLI, and dynamic imports count too", () => {
    const code = 'import { launch } from "../../cli/launcher";\nexport const page = () => import("../../app/page");\n';
    expect(violations("src/server/web/http/web-server.ts", code)).toHaveLength(2);
  });

  it("keeps worker-side modules off web-only ones", () => {
    const code = 'import { createStudyQueries } from "../studies/studies.queries";\nimport next from "next";\n';
    expect(violations("src/server/worker/trials/trial-run.ts", code)).toEqual([
      expect.stringMatching(/^Worker-side modules never import web-only ones/),
      expect.stringMatching(/^Worker-side modules never import web-only ones/),
    ]);
    expect(violations("src/server/web/studies/study-service.ts", code)).toEqual([]);
  });

  it("lets pages import server types only, and keeps src/lib and src/shared neutral", () => {
    expect(
      violations("src/app/_lib/trpc.ts", 'import type { AppRouter } from "../../server/trpc/app-router";\n'),
    ).toEqual([]);
    expect(violations("src/app/_lib/trpc.ts", 'import { appRouter } from "../../server/trpc/app-router";\n')).toEqual([
      expect.stringMatching(/^Pages reach the server through tRPC/),
    ]);
    expect(violations("src/lib/listen.ts", 'import { AppError } from "../server/errors/app-error";\n')).toHaveLength(1);
    expect(violations("src/shared/roles.ts", 'import { listenHttp } from "../lib/listen";\n')).toHaveLength(1);
  });
});
