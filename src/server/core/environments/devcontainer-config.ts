import { parse, printParseErrorCode, visit, type ParseError } from "jsonc-parser";
import { z } from "zod";
import { IGNORED_KEYS, LABEL_KEYS, REFUSED_KEYS } from "./devcontainer-keys";
import { lifecycleScript, lifecycleCommandSchema, LIFECYCLE_KEYS } from "./devcontainer-lifecycle";

/** A devcontainer.json larger than this is refused before it is parsed (a real one is a few KiB). */
export const MAX_DEVCONTAINER_BYTES = 256 * 1024;
/** Objects and arrays nested deeper than this are refused (a real one nests 3–4 levels). */
export const MAX_DEVCONTAINER_DEPTH = 16;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Names each run sets itself (its gateway token under every name the agent CLIs read): never baked into an image. */
const RUN_VARIABLES = new Set(["GW_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"]);
/** `${localEnv:…}` would copy the host's environment (its secrets) into the image: no substitution at all. */
const SUBSTITUTION = /\$\{[^}]*\}/;

function variablesSchema(options: { key: string; max: number }) {
  return z
    .record(
      z.string(),
      z
        .string()
        .max(8192, `${options.key} values are at most 8,192 characters`)
        .refine((value) => !SUBSTITUTION.test(value), {
          message: `${options.key} values cannot use \${…} variables (such as \${localEnv:…}, which would copy the host's environment into the image): write the value itself`,
        }),
    )
    .refine((record) => Object.keys(record).length <= options.max, `${options.key} has at most ${options.max} entries`)
    .superRefine((record, context) => {
      const bad = Object.keys(record).filter((name) => !VARIABLE_NAME.test(name));
      if (bad.length > 0)
        context.addIssue({
          code: "custom",
          message: `${options.key} names must be letters, digits and _, not starting with a digit (${bad
            .slice(0, 5)
            .map((name) => JSON.stringify(name))
            .join(", ")})`,
        });
    });
}

/** A relative path inside the project: no absolute paths, no NUL. */
const relativePath = z
  .string()
  .min(1)
  .max(1024)
  .refine((value) => !value.includes("\0") && !value.startsWith("/"), "must be a path relative to devcontainer.json");

const buildSchema = z.strictObject({
  dockerfile: relativePath,
  context: relativePath.optional(),
  args: variablesSchema({ key: "build.args", max: 64 }).optional(),
  target: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, "build.target names a stage (letters, digits, _ . -)")
    .optional(),
});

/** A Docker image reference (name[:tag][@digest]) as the engine accepts it. */
const imageReference = z
  .string()
  .max(512)
  .regex(/^[a-z0-9][a-z0-9._\-/:@]*$/i, "image must be an image reference such as invariant-base:bookworm");

const containerEnvSchema = variablesSchema({ key: "containerEnv", max: 128 }).refine(
  (record) => !Object.keys(record).some((name) => RUN_VARIABLES.has(name) || name.startsWith("INVARIANT_")),
  {
    message: `containerEnv cannot set ${[...RUN_VARIABLES].join(", ")} or INVARIANT_* (each run sets its own gateway token; credentials never go into an image)`,
  },
);

const configSchema = z
  .strictObject({
    image: imageReference.optional(),
    build: buildSchema.optional(),
    containerEnv: containerEnvSchema.optional(),
    remoteUser: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]{0,31}$|^\d{1,10}$/i, "remoteUser must be a user name or a uid")
      .optional(),
    onCreateCommand: lifecycleCommandSchema.optional(),
    updateContentCommand: lifecycleCommandSchema.optional(),
    postCreateCommand: lifecycleCommandSchema.optional(),
  })
  .refine((config) => (config.image === undefined) !== (config.build === undefined), {
    message: 'Say where the environment comes from: either "image" (a local image) or "build.dockerfile", not both',
  });

/** Where the image comes from: a local image, or a Dockerfile built offline (paths relative to the project). */
export type DevcontainerSource =
  | { kind: "image"; image: string }
  | {
      kind: "dockerfile";
      /** The Dockerfile, relative to the project. */
      dockerfile: string;
      /** The build context folder, relative to the project ("" = the project itself). */
      context: string;
      args: Record<string, string>;
      target: string | null;
    };

export interface DevcontainerConfig {
  source: DevcontainerSource;
  containerEnv: Record<string, string>;
  remoteUser: string | null;
  /** The lifecycle commands in the order they run, each as a shell script. */
  commands: { key: (typeof LIFECYCLE_KEYS)[number]; script: string }[];
  /** Keys present that do nothing here, and why. */
  ignored: { key: string; reason: string }[];
}

/** A devcontainer.json invariant-web cannot use: every problem, each naming its key (or line:column). */
export class DevcontainerRefusal extends Error {
  readonly file: string;
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`${file} cannot be used: ${problems.join("; ")}.`);
    this.name = "DevcontainerRefusal";
    this.file = file;
    this.problems = problems;
  }
}

/** The 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}

function deepestNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  const down = () => {
    depth += 1;
    deepest = Math.max(deepest, depth);
  };
  const up = () => {
    depth -= 1;
  };
  visit(
    text,
    { onObjectBegin: down, onArrayBegin: down, onObjectEnd: up, onArrayEnd: up },
    { allowTrailingComma: true },
  );
  return deepest;
}

/** JSONC (comments and trailing commas allowed) into a plain value, or the problems with their line:column. */
function parseJsonc(options: { file: string; text: string }): unknown {
  const { file, text } = options;
  if (Buffer.byteLength(text) > MAX_DEVCONTAINER_BYTES)
    throw new DevcontainerRefusal(file, [`it is larger than ${MAX_DEVCONTAINER_BYTES / 1024} KiB`]);
  if (deepestNesting(text) > MAX_DEVCONTAINER_DEPTH)
    throw new DevcontainerRefusal(file, [`it nests objects and arrays deeper than ${MAX_DEVCONTAINER_DEPTH} levels`]);
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0)
    throw new DevcontainerRefusal(
      file,
      errors
        .slice(0, 5)
        .map((error) => `${printParseErrorCode(error.error)} at line ${lineColumn(text, error.offset)}`),
    );
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new DevcontainerRefusal(file, ["it must be one JSON object"]);
  return value;
}

function keyProblems(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === "features" && value && typeof value === "object") {
      const ids = Object.keys(value).slice(0, 20);
      problems.push(`"features" (${ids.length > 0 ? ids.join(", ") : "empty"}) is not supported: ${REFUSED_KEYS[key]}`);
    } else if (key in REFUSED_KEYS) problems.push(`"${key}" is not supported: ${REFUSED_KEYS[key]}`);
  }
  const build = raw.build;
  if (build && typeof build === "object" && !Array.isArray(build)) {
    if ("cacheFrom" in build) problems.push('"build.cacheFrom" is not supported: it reads a cache from a registry');
    if ("options" in build)
      problems.push('"build.options" is not supported: extra docker build options could widen the build');
  }
  return problems;
}

function zodProblems(error: z.ZodError): string[] {
  return error.issues.slice(0, 10).map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const where = issue.path.length > 0 ? `${issue.path.join(".")}.` : "";
      return issue.keys.map((key) => `"${where}${key}" is not supported by invariant-web`).join("; ");
    }
    const key = issue.path.join(".");
    return key ? `"${key}": ${issue.message}` : issue.message;
  });
}

/** Joins a path relative to the devcontainer.json's folder into one relative to the project (may start with ..). */
function fromProject(configDir: string, relative: string): string {
  const joined = `${configDir}/${relative}`.split("/");
  const out: string[] = [];
  for (const part of joined) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

/**
 * Parses and validates a devcontainer.json (`file` is its path in the project, e.g.
 * `.devcontainer/devcontainer.json`). Throws DevcontainerRefusal naming every key it cannot use. Paths in
 * the result are relative to the project; whether they stay inside it is checked on the files themselves.
 */
export function parseDevcontainer(options: { file: string; text: string }): DevcontainerConfig {
  const raw = parseJsonc(options) as Record<string, unknown>;
  const refused = keyProblems(raw);
  const ignored = Object.keys(raw)
    .filter((key) => key in IGNORED_KEYS)
    .map((key) => ({ key, reason: IGNORED_KEYS[key] ?? "" }));
  const known = Object.fromEntries(
    Object.entries(raw).filter(([key]) => !(key in REFUSED_KEYS) && !(key in IGNORED_KEYS) && !LABEL_KEYS.has(key)),
  );
  if (known.build && typeof known.build === "object")
    known.build = Object.fromEntries(
      Object.entries(known.build).filter(([key]) => key !== "cacheFrom" && key !== "options"),
    );
  const parsed = configSchema.safeParse(known);
  const problems = [...refused, ...(parsed.success ? [] : zodProblems(parsed.error))];
  if (problems.length > 0 || !parsed.success) throw new DevcontainerRefusal(options.file, problems);
  const config = parsed.data;
  const configDir = options.file.includes("/") ? options.file.slice(0, options.file.lastIndexOf("/")) : "";
  const source: DevcontainerSource = config.build
    ? {
        kind: "dockerfile",
        dockerfile: fromProject(configDir, config.build.dockerfile),
        context: fromProject(configDir, config.build.context ?? "."),
        args: config.build.args ?? {},
        target: config.build.target ?? null,
      }
    : { kind: "image", image: config.image ?? "" };
  const commands = LIFECYCLE_KEYS.flatMap((key) => {
    const command = config[key];
    return command === undefined ? [] : [{ key, script: lifecycleScript(command) }];
  });
  return {
    source,
    containerEnv: config.containerEnv ?? {},
    remoteUser: config.remoteUser ?? null,
    commands,
    ignored,
  };
}
