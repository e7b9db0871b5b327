/**
 * Bad input everywhere: every tRPC procedure (found by walking the router, so a new one is covered
 * without editing this file) gets generated invalid and hostile inputs — arbitrary JSON, objects with
 * its own keys holding wrong types, huge strings, NUL bytes, path tricks, unicode — as admin and as
 * viewer. Each refused call must be a client error with a message (never INTERNAL_SERVER_ERROR) and
 * leave every table's row count as it was. The CLI's argument parsing gets hostile flags the same way.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import { build } from "esbuild";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseCli } from "../src/cli/config";
import { UsageError } from "../src/cli/usage-error";
import { createAppServices, type AppServices } from "../src/server/web/wiring/app-services";
import type { Db } from "../src/server/core/db/client";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { appRouter } from "../src/server/web/trpc/app-router";
import { createCallerFactory } from "../src/server/web/trpc/init";
import { migratedDb, redisUrlFor, REPO_ROOT, tempDir } from "./support/temp";

const SEED = 15_2026;
const RUNS = 25;
const CLIENT_ERRORS = new Set([
  "BAD_REQUEST",
  "FORBIDDEN",
  "NOT_FOUND",
  "PRECONDITION_FAILED",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNPROCESSABLE_CONTENT",
  "METHOD_NOT_SUPPORTED",
]);

let db: Db;
let services: AppServices;
let projectId = "";
let projectDir = "";
const createCaller = createCallerFactory(appRouter);

beforeAll(async () => {
  const { db: database, dataDir } = await migratedDb();
  db = database;
  services = createAppServices({
    db,
    redisUrl: redisUrlFor(inject("redisUrl"), 0),
    dataDir,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: createDockerRuntime(),
    sessionRuntime: (policy) => createDockerRuntime(policy),
  });
  // one real project, so queries that take its id reach past the lookup with hostile paths and fields
  projectDir = tempDir("hostile-project");
  const project = await caller("admin").projects.add({ hostPath: projectDir });
  projectId = project.id;
  await caller("admin").system.createViewerLink({ label: "seeded" });
});
afterAll(async () => {
  await services.close();
  await db.$disconnect();
});

function caller(role: "admin" | "viewer") {
  return createCaller({
    identity: role === "admin" ? { role: "admin", subject: "admin" } : { role: "viewer", subject: "link" },
    services,
  });
}

type ProcedureDef = { type: string; inputs: unknown[] };
interface ProcedureInfo {
  path: string;
  type: string;
  /** the keys of its input object, when its input is one (empty when it takes no input) */
  keys: string[];
  hasInput: boolean;
}

/** Every procedure of the app router, from the router itself. */
function procedures(): ProcedureInfo[] {
  return Object.entries(appRouter._def.procedures).map(([procedurePath, procedure]) => {
    const def = (procedure as unknown as { _def: ProcedureDef })._def;
    const input = def.inputs[0] as { shape?: Record<string, unknown> } | undefined;
    return {
      path: procedurePath,
      type: def.type,
      keys: input?.shape ? Object.keys(input.shape) : [],
      hasInput: def.inputs.length > 0,
    };
  });
}

const hostileFragments = [
  "../../../../etc/passwd",
  "..\\..\\windows\\system32",
  "/etc/shadow",
  "%2e%2e%2f%2e%2e%2f",
  "\u0000",
  "a\u0000b",
  "\u202e\u2066evil",
  "🦄💥",
  "Ω≈ç√∫",
  "\ud800",
  "$(touch /tmp/pwned)",
  "`id`",
  "'; DROP TABLE Project; --",
  "<script>alert(1)</script>",
  "\r\n\r\nX-Injected: 1",
  " ",
  "",
  "__proto__",
  "constructor",
  "~/.ssh/id_rsa",
  "file:///etc/passwd",
  "\\\\?\\C:\\",
];

const hostileString = fc.oneof(
  fc.constantFrom(...hostileFragments),
  fc.tuple(fc.constantFrom(...hostileFragments), fc.string({ unit: "binary", maxLength: 40 })).map(([a, b]) => a + b),
  fc.constantFrom(...hostileFragments).map((fragment) => `${fragment}/`.repeat(3000) + "\u0000"),
  fc.constant("x".repeat(200_000)),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => `../${s}\u0000`),
);

/**
 * For mutations every generated string carries a NUL (or is far too long), which no field accepts:
 * a plain emoji label is a fine label, so it would be accepted and written, and that is no refusal.
 */
const refusedString = hostileString.map((text) =>
  text.length > 100_000 || text.includes("\u0000") ? text : `${text}\u0000`,
);

/** Values of the wrong type (or a hostile one) for any field. */
const wrongValueOf = (strings: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.oneof(
    strings,
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 2 ** 53, -(2 ** 31)),
    fc.boolean(),
    fc.constant(null),
    fc.array(strings, { maxLength: 5 }),
    fc.dictionary(strings, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    fc.jsonValue({ maxDepth: 3 }).filter((value) => typeof value !== "string"),
    fc.constant(Object.create(null) as unknown),
    fc.constant({ __proto__: { polluted: true } }),
  );

/** Inputs invalid for a procedure: arbitrary JSON, or its own keys holding wrong or hostile values. */
function invalidInput(info: ProcedureInfo): fc.Arbitrary<unknown> {
  const arbitraryJson = fc.jsonValue({ maxDepth: 3 });
  const strings = info.type === "mutation" ? refusedString : hostileString;
  const wrongValue = wrongValueOf(strings);
  if (info.keys.length === 0) return fc.oneof(arbitraryJson, wrongValue);
  // a query may also get the real project's id in an id field, to reach past the lookup
  const fieldValue =
    info.type === "query"
      ? fc.oneof({ weight: 1, arbitrary: fc.constant(projectId) }, { weight: 4, arbitrary: wrongValue })
      : wrongValue;
  const ownKeys = fc.record(Object.fromEntries(info.keys.map((key) => [key, fieldValue])), {
    requiredKeys: [],
  });
  const withHostileStrings = fc.record(Object.fromEntries(info.keys.map((key) => [key, strings])));
  return fc.oneof(arbitraryJson, ownKeys, withHostileStrings);
}

async function rowCounts(): Promise<Record<string, number>> {
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await db.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT COUNT(*) AS n FROM "${name}"`);
    counts[name] = Number(row?.n ?? 0);
  }
  return counts;
}

type Call = (input: unknown) => Promise<unknown>;
function procedureOf(role: "admin" | "viewer", procedurePath: string): Call {
  const [namespace = "", name = ""] = procedurePath.split(".");
  const router = caller(role) as unknown as Record<string, Record<string, Call>>;
  const call = router[namespace]?.[name];
  if (!call) throw new Error(`no procedure ${procedurePath}`);
  return call;
}

/** Calls one procedure; a refusal must be a client error with a message, and write nothing. */
async function checkCall(options: { role: "admin" | "viewer"; info: ProcedureInfo; input: unknown }): Promise<void> {
  const { role, info, input } = options;
  const before = await rowCounts();
  let outcome: { ok: true } | { ok: false; error: unknown };
  try {
    await procedureOf(role, info.path)(input);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const label = `${role} ${info.path}(${JSON.stringify(input)?.slice(0, 200)})`;
  if (outcome.ok) {
    // only a query may accept a generated input (e.g. an all-optional filter); it must not write
    expect(info.type, `${label} was accepted`).toBe("query");
  } else {
    const { error } = outcome;
    expect(error, label).toBeInstanceOf(TRPCError);
    const { code, message } = error as TRPCError;
    expect(CLIENT_ERRORS.has(code), `${label} answered ${code}: ${message}`).toBe(true);
    expect(message.trim().length, `${label} has no message`).toBeGreaterThan(0);
    if (role === "viewer" && info.type === "mutation") expect(code, label).toBe("FORBIDDEN");
  }
  expect(await rowCounts(), `${label} changed the database`).toEqual(before);
}

describe("every tRPC procedure refuses hostile input cleanly", () => {
  it("finds the procedures by walking the router", () => {
    const paths = procedures().map((info) => info.path);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths).toEqual(expect.arrayContaining(["projects.add", "review.file", "studies.create", "applies.run"]));
  });

  for (const role of ["admin", "viewer"] as const) {
    it(`as ${role}`, async () => {
      let calls = 0;
      for (const info of procedures()) {
        // a procedure without input has nothing to be invalid; a viewer is still refused its mutations
        if (!info.hasInput && !(role === "viewer" && info.type === "mutation")) continue;
        await fc.assert(
          fc.asyncProperty(invalidInput(info), async (input) => {
            calls += 1;
            await checkCall({ role, info, input });
          }),
          { seed: SEED, numRuns: info.hasInput ? RUNS : 3, endOnFailure: true },
        );
      }
      expect(calls).toBeGreaterThan(500);
    });
  }
});

/** A flag the parser must refuse: bad numbers, unknown names, hostile values. */
const hostileFlag = fc.oneof(
  fc.tuple(
    fc.constantFrom("--port", "--concurrency"),
    fc.oneof(hostileString, fc.constantFrom("-1", "1e9", "0x10", "NaN", "65536", "4.5")),
  ),
  fc.tuple(
    hostileString.filter((s) => s.trim() !== "" && !s.startsWith("-")).map((s) => `--${s}`),
    fc.constant(""),
  ),
  fc.tuple(
    fc.constantFrom("--no-open", "--json", "--yes", "-h"),
    hostileString.map((s) => `--${s}=x`),
  ),
);

describe("the CLI's argument parsing refuses hostile flags cleanly", () => {
  it("in process: a UsageError with a message, never a crash", () => {
    fc.assert(
      fc.property(
        fc.array(hostileFlag, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("start", "doctor", "export"),
        (flags, command) => {
          const argv = [command, ...flags.flat().filter((arg) => arg !== "")];
          let error: unknown = null;
          try {
            parseCli(argv, {});
          } catch (caught) {
            error = caught;
          }
          expect(error, JSON.stringify(argv).slice(0, 200)).toBeInstanceOf(UsageError);
          expect((error as UsageError).message.trim().length).toBeGreaterThan(0);
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });

  it("the real command: exit code 2, a one-line reason, no stack trace", async () => {
    // the CLI bundled from source the way scripts/build.mjs bundles dist/cli.mjs, so this checks the code as it is
    // (dist/ may be older); beside node_modules so its external packages resolve
    const outdir = path.join(REPO_ROOT, "node_modules", ".cache", `hostile-cli-${process.pid}`);
    await build({
      entryPoints: { cli: path.join(REPO_ROOT, "src", "cli", "main.ts") },
      outdir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      logLevel: "warning",
    });
    const bin = path.join(outdir, "cli.mjs");
    try {
      checkCommand(bin);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});

function checkCommand(bin: string): void {
  const samples = fc.sample(fc.array(hostileFlag, { minLength: 1, maxLength: 2 }), { seed: SEED, numRuns: 6 });
  for (const flags of samples) {
    // an argument cannot hold a NUL, and one over 128 KiB is refused by the kernel (E2BIG) before node runs
    const args = ["doctor", ...flags.flat().map((arg) => arg.replaceAll("\u0000", "").slice(0, 20_000))];
    const result = spawnSync(process.execPath, [bin, ...args], {
      encoding: "utf8",
      timeout: 20_000,
      env: { NODE_ENV: "test", PATH: process.env.PATH ?? "", HOME: tempDir("cli-home") },
    });
    const label = JSON.stringify(args).slice(0, 200);
    expect(result.status, `${label}: ${result.stderr}`).toBe(2);
    expect(result.stderr, label).toMatch(/^invariant-web: \S/);
    expect(result.stderr, label).not.toMatch(/\n\s+at /);
  }
}
