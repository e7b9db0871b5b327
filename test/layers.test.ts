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
      'import { PrismaClient } from "@prisma/client";\nimport { Study } from "../../../generated/prisma/client";\n';
    expect(violations("src/server/web/studies/study-service.ts", code)).toEqual([
      expect.stringMatching(/^Only src\/server\/core\/db\/ and \*\.queries\.ts modules touch Prisma/),
      expect.stringMatching(/^Only src\/server\/core\/db\/ and \*\.queries\.ts modules touch Prisma/),
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
    const code =
      'import { launch } from "../../../cli/launcher";\nexport const page = () => import("../../../app/page");\n';
    const pagesAndCli = violations("src/server/web/http/web-server.ts", code).filter((message) =>
      message.startsWith("Domain and transport modules under src/server/ never import the pages"),
    );
    expect(pagesAndCli).toHaveLength(2);
  });

  it("keeps worker-side and core modules off web-only ones", () => {
    const code = 'import { createStudyQueries } from "../../web/studies/studies.queries";\nimport next from "next";\n';
    expect(violations("src/server/worker/trials/trial-run.ts", code)).toEqual([
      expect.stringMatching(/^Worker-side and core modules never import web-only ones/),
      expect.stringMatching(/^src\/server\/worker\/ and src\/server\/web\/ run in different processes/),
      expect.stringMatching(/^Worker-side and core modules never import web-only ones/),
    ]);
    expect(violations("src/server/web/wiring/app-services.ts", code)).toEqual([]);
  });

  it("refuses an import up the folder order, across processes, or up from core/", () => {
    const later = 'import { createStudyService } from "../studies/study-service";\n';
    expect(violations("src/server/web/projects/project-service.ts", later)).toEqual([
      expect.stringMatching(/^src\/server\/web\/projects may not import the later layer src\/server\/web\/studies/),
    ]);
    expect(violations("src/server/web/removal/project-removal.ts", later)).toEqual([]);
    const upFromCore = 'import { dependencyHint } from "../../worker/verdicts/dependency-hint";\n';
    expect(violations("src/server/core/errors/app-error.ts", upFromCore)).toEqual([
      expect.stringMatching(/^core\/ runs in both processes and never imports src\/server\/worker\//),
    ]);
    const webFromWorker = 'import type { AccessService } from "../../web/access/access-service";\n';
    expect(violations("src/server/worker/trials/trial-run.ts", webFromWorker)).toEqual([
      expect.stringMatching(/^Worker-side and core modules never import web-only ones/),
      expect.stringMatching(/run in different processes and never import each other/),
    ]);
    const newFolder = 'import { LABEL } from "../../core/runtime/container-spec";\n';
    expect(violations("src/server/web/novel/thing.ts", newFolder)).toEqual([
      expect.stringMatching(/^src\/server\/web\/novel is in no layer: add it to SERVER_ORDER/),
    ]);
  });

  it("refuses an import cycle, type-only imports included", () => {
    // docker-runtime.ts imports container-lifecycle.ts; a lifecycle module importing it back closes a cycle
    const back = 'import type { DockerRuntimeOptions } from "./docker-runtime";\n';
    expect(violations("src/server/core/runtime/container-lifecycle.ts", back)).toEqual([
      expect.stringMatching(
        /^Import cycle: src\/server\/core\/runtime\/container-lifecycle\.ts → src\/server\/core\/runtime\/docker-runtime\.ts → src\/server\/core\/runtime\/container-lifecycle\.ts/,
      ),
    ]);
    expect(
      violations("src/server/core/runtime/container-lifecycle.ts", 'import type { LABEL } from "./container-spec";\n'),
    ).toEqual([]);
  });

  it("keeps ioredis in the redis and events folders and the wiring", () => {
    const code = 'import type { Redis } from "ioredis";\n';
    expect(violations("src/server/web/studies/study-control.ts", code)).toEqual([
      expect.stringMatching(/^Redis is infrastructure/),
    ]);
    expect(violations("src/server/core/jobs/job-queue.ts", code)).toEqual([
      expect.stringMatching(/^Redis is infrastructure/),
    ]);
    expect(violations("src/server/core/redis/connection.ts", code)).toEqual([]);
    expect(violations("src/server/web/events/recorder.ts", code)).toEqual([]);
    expect(violations("src/server/web/wiring/app-services.ts", code)).toEqual([]);
  });

  it("lets pages import server types only, and keeps src/lib and src/shared neutral", () => {
    expect(
      violations("src/app/_lib/trpc.ts", 'import type { AppRouter } from "../../server/web/trpc/app-router";\n'),
    ).toEqual([]);
    expect(
      violations("src/app/_lib/trpc.ts", 'import { appRouter } from "../../server/web/trpc/app-router";\n'),
    ).toEqual([expect.stringMatching(/^Pages reach the server through tRPC/)]);
    expect(
      violations("src/lib/listen.ts", 'import { AppError } from "../server/core/errors/app-error";\n'),
    ).toHaveLength(1);
    expect(violations("src/shared/roles.ts", 'import { listenHttp } from "../lib/listen";\n')).toHaveLength(1);
  });
});
