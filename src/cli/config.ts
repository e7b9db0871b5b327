import { PROVIDER_ENV_SHAPE, providerKeysOf, type ProviderKeys } from "./provider-env";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { DEFAULT_CACHE_DAYS } from "../server/core/artifacts/artifact-cache";
import { workspaceKindSettingSchema } from "../server/core/workspaces/workspace-kind";
import { UsageError, wholeNumber } from "./usage-error";
import { CLI_OPTIONS } from "./cli-options";
import { workflowFlags, type WorkflowFlags } from "./workflow-flags";
import { authorOf, branchAuthorEnv } from "./branch-author";
import { remoteWorker, type RemoteWorkerConfig } from "./remote-worker-config";
import { REGISTRY_ENV_SHAPE, registryOf } from "./registry-config";
import type { ImageRegistry } from "../server/core/runtime/registry-transfer";
import { messageOf } from "../shared/error-message";
import { MODEL_PROVIDERS, modelProviderSchema, type ModelProvider } from "../shared/harness-kinds";

/**
 * The CLI's configuration: flags first, then environment variables, then defaults. This is the only
 * module of the launcher, web process and worker that reads process.env (see docs/configuration.md).
 */
export const DEFAULT_PORT = 4317;

/** An environment variable holding a whole number (its range is checked with the option it sets). */
const wholeNumberEnv = (message: string) => z.string().regex(/^\d+$/, message).optional();
const optionalNumber = (text: string | undefined) => (text === undefined ? null : Number(text));
const between = (o: { name: string; min: number; max: number }) =>
  z.int().min(o.min, `${o.name} must be ${o.min}..${o.max}`).max(o.max, `${o.name} must be ${o.min}..${o.max}`);

const envSchema = z.object({
  INVARIANT_DATA_DIR: z.string().min(1).optional(),
  XDG_DATA_HOME: z.string().min(1).optional(),
  REDIS_URL: z.string().min(1).optional(),
  INVARIANT_PORT: wholeNumberEnv("INVARIANT_PORT must be a port number"),
  INVARIANT_HOST: z.string().min(1).optional(),
  INVARIANT_ALLOWED_HOSTS: z.string().optional(),
  INVARIANT_BASE_IMAGE: z.string().min(1).optional(),
  INVARIANT_HOST_CA: z
    .string()
    .refine((value) => value === "auto" || value === "off" || path.isAbsolute(value), {
      message: 'INVARIANT_HOST_CA must be "auto", "off" or the absolute path of a PEM bundle',
    })
    .optional(),
  INVARIANT_SESSION_DAYS: wholeNumberEnv("INVARIANT_SESSION_DAYS must be a whole number of days, 1..365"),
  INVARIANT_SESSION_IDLE_MINUTES: wholeNumberEnv("INVARIANT_SESSION_IDLE_MINUTES must be whole minutes, 1..10080"),
  INVARIANT_GC_INTERVAL_MINUTES: wholeNumberEnv("INVARIANT_GC_INTERVAL_MINUTES must be whole minutes, 1..10080"),
  INVARIANT_WORKER_CONCURRENCY: wholeNumberEnv("INVARIANT_WORKER_CONCURRENCY must be a whole number"),
  INVARIANT_WORKER_MIN_FREE_DISK_MIB: wholeNumberEnv(
    "INVARIANT_WORKER_MIN_FREE_DISK_MIB must be a whole number of MiB, such as 1024",
  ),
  INVARIANT_WORKER_MIN_FREE_MEMORY_MIB: wholeNumberEnv(
    "INVARIANT_WORKER_MIN_FREE_MEMORY_MIB must be a whole number of MiB, such as 256",
  ),
  INVARIANT_WORKSPACE_KIND: workspaceKindSettingSchema.optional(),
  INVARIANT_WORKER_CACHE_DAYS: wholeNumberEnv("INVARIANT_WORKER_CACHE_DAYS must be a whole number of days, 1..3650"),
  INVARIANT_WORKER_MAX_RESULT_MIB: wholeNumberEnv("INVARIANT_WORKER_MAX_RESULT_MIB must be a whole number of MiB"),
  INVARIANT_WORKER_MAX_IMAGE_MIB: wholeNumberEnv("INVARIANT_WORKER_MAX_IMAGE_MIB must be a whole number of MiB"),
  INVARIANT_DASHBOARD_URL: z.string().min(1).optional(),
  ...REGISTRY_ENV_SHAPE,
  INVARIANT_WORKER_TOKEN: z.string().min(1).optional(),
  INVARIANT_WORKER_TOKEN_FILE: z.string().min(1).optional(),
  /** `mcp`: a viewer link's token instead of the admin token (INVARIANT_TOKEN, or a file: --token-file). */
  INVARIANT_TOKEN: z.string().min(1).optional(),
  INVARIANT_BRANCH_AUTHOR: branchAuthorEnv,
  DISPLAY: z.string().optional(),
  WAYLAND_DISPLAY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  ...PROVIDER_ENV_SHAPE,
  OPENAI_BASE_URL: z.url({ error: "OPENAI_BASE_URL must be a URL such as https://api.openai.com/v1" }).optional(),
  CODEX_HOME: z.string().min(1).optional(),
  INVARIANT_CHATGPT_BASE_URL: z.url({ error: "INVARIANT_CHATGPT_BASE_URL must be a URL" }).optional(),
  INVARIANT_CHATGPT_TOKEN_URL: z.url({ error: "INVARIANT_CHATGPT_TOKEN_URL must be a URL" }).optional(),
});

const launchSchema = z.object({
  port: z.number().int().min(0, "--port must be 0..65535").max(65535, "--port must be 0..65535"),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  redisUrl: z.string().nullable(),
  open: z.boolean(),
  worker: z.boolean(),
  allowedHosts: z.array(z.string()),
  baseImage: z.string().min(1),
  /** The host CA bundle for containers with network: "auto", "off" or a path (INVARIANT_HOST_CA). */
  hostCa: z.string().min(1),
  concurrency: z.number().int().min(1, "--concurrency must be at least 1").max(64, "--concurrency is at most 64"),
  /** Free disk of the data dir and available memory under which a worker takes no new job (MiB; null: the worker's default). */
  workerFloorsMib: z.object({
    disk: between({ name: "INVARIANT_WORKER_MIN_FREE_DISK_MIB", min: 0, max: 1024 ** 2 }).nullable(),
    memory: between({ name: "INVARIANT_WORKER_MIN_FREE_MEMORY_MIB", min: 0, max: 1024 ** 2 }).nullable(),
  }),
  /** How long a browser stays signed in (INVARIANT_SESSION_DAYS, default 30). */
  sessionDays: between({ name: "INVARIANT_SESSION_DAYS", min: 1, max: 365 }),
  /** A terminal session with no input or output this long is stopped, resumable (INVARIANT_SESSION_IDLE_MINUTES). */
  sessionIdleMinutes: between({ name: "INVARIANT_SESSION_IDLE_MINUTES", min: 1, max: 10_080 }),
  gcIntervalMinutes: between({ name: "INVARIANT_GC_INTERVAL_MINUTES", min: 1, max: 10_080 }),
  /** A worker on another host removes cached snapshots and test files unused this long when it starts (INVARIANT_WORKER_CACHE_DAYS). */
  workerCacheDays: between({ name: "INVARIANT_WORKER_CACHE_DAYS", min: 1, max: 3650 }),
  workspaceKind: workspaceKindSettingSchema, // INVARIANT_WORKSPACE_KIND
  /** How large a result bundle and an image a worker on another host may upload (MiB; null: the defaults, 2 GiB and 32 GiB). */
  workerUploadMib: z.object({
    results: between({ name: "INVARIANT_WORKER_MAX_RESULT_MIB", min: 1, max: 1024 ** 2 }).nullable(),
    images: between({ name: "INVARIANT_WORKER_MAX_IMAGE_MIB", min: 1, max: 1024 ** 2 }).nullable(),
  }),
  json: z.boolean(),
  child: z.boolean(),
});
export type CliConfig = z.infer<typeof launchSchema> & {
  command: string;
  positionals: string[];
  help: boolean;
  version: boolean;
  /** --project (id, name or host path) and --command, for `environment` and `dependencies` */
  project: string | null;
  shellCommand: string | null;
  /** --devcontainer, for `environment prepare`: build the version from the project's devcontainer.json */
  devcontainer: boolean;
  /** --scripts, for `mock-model` (null: the scripts shipped in the package) */
  scriptsDir: string | null;
  /** --yes (`apply`: apply the plan shown); --scripted (`demo`: on the scripted model even with model access) */
  yes: boolean;
  scripted: boolean;
  /** --format and --output, for `export` */
  format: string | null;
  output: string | null;
  /** Flags of the workflow commands (project, study, trial, apply --trial): see workflow-cli.ts. */
  workflow: WorkflowFlags;
  /**
   * `worker --dashboard-url`: a worker on another host (docs/scaling.md). The token comes from a file or
   * INVARIANT_WORKER_TOKEN, never from the command line (argv is visible to every user of the host).
   */
  remote: RemoteWorkerConfig | null;
  /**
   * --registry (INVARIANT_REGISTRY): the OCI registry environment and result images move through between
   * hosts, with this host's credentials (INVARIANT_REGISTRY_USERNAME/PASSWORD); null: docker save over HTTP.
   */
  registry: ImageRegistry | null;
  /** `mcp`: the token to use instead of the data dir's admin token (a viewer link's), as given; never from argv. */
  accessToken: { file: string | null; value: string | null };
  /** --provider, for `login` and `logout` (null: OpenAI). */
  provider: ModelProvider | null;
  /** Author and committer of Apply as a branch's commits (INVARIANT_BRANCH_AUTHOR; null: invariant-web <invariant-web@localhost>). */
  branchAuthor: { name: string; email: string } | null;
  /** For the model gateway: the real credentials' sources and the upstream API. Never log these. */
  modelGateway: { openaiApiKey: string | null; codexHome: string; upstreamBaseUrl: string } & ProviderKeys &
    ChatgptUrls;
};
function providerOf(text: string | undefined): ModelProvider | null {
  if (text === undefined) return null;
  const parsed = modelProviderSchema.safeParse(text);
  if (!parsed.success)
    throw new UsageError(`--provider must be ${MODEL_PROVIDERS.join(", ")} (not "${text}"); without it, openai.`);
  return parsed.data;
}
/** A ChatGPT sign-in's endpoint and token service (INVARIANT_CHATGPT_*; tests point them at local stand-ins). */
type ChatgptUrls = { chatgptBaseUrl?: string; chatgptTokenUrl?: string };
function orUsageError<T>(result: { value: T } | { error: string }): T {
  if ("error" in result) throw new UsageError(result.error);
  return result.value;
}
export function defaultDataDir(env: { XDG_DATA_HOME?: string | undefined }): string {
  return path.join(env.XDG_DATA_HOME ?? path.join(os.homedir(), ".local", "share"), "invariant-web");
}

function commaList(text: string): string[] {
  return text.split(",").flatMap((item) => (item.trim() ? [item.trim()] : []));
}

/** Workers' floors, and what a worker on another host may upload, from the environment (MiB; null: the defaults). */
function workerMibOf(env: z.infer<typeof envSchema>) {
  return {
    workerFloorsMib: {
      disk: optionalNumber(env.INVARIANT_WORKER_MIN_FREE_DISK_MIB),
      memory: optionalNumber(env.INVARIANT_WORKER_MIN_FREE_MEMORY_MIB),
    },
    workerUploadMib: {
      results: optionalNumber(env.INVARIANT_WORKER_MAX_RESULT_MIB),
      images: optionalNumber(env.INVARIANT_WORKER_MAX_IMAGE_MIB),
    },
  };
}

/** The model gateway's credential sources and upstream, from the environment. */
function modelGatewayOf(env: z.infer<typeof envSchema>): CliConfig["modelGateway"] {
  return {
    openaiApiKey: env.OPENAI_API_KEY?.trim() || null,
    codexHome: path.resolve(env.CODEX_HOME ?? path.join(os.homedir(), ".codex")),
    upstreamBaseUrl: env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    ...providerKeysOf(env),
    ...(env.INVARIANT_CHATGPT_BASE_URL ? { chatgptBaseUrl: env.INVARIANT_CHATGPT_BASE_URL } : {}),
    ...(env.INVARIANT_CHATGPT_TOKEN_URL ? { chatgptTokenUrl: env.INVARIANT_CHATGPT_TOKEN_URL } : {}),
  };
}

export function parseCli(argv: readonly string[], rawEnv: Readonly<Record<string, string | undefined>>): CliConfig {
  const envResult = envSchema.safeParse(rawEnv);
  if (!envResult.success) throw new UsageError(envResult.error.issues.map((issue) => issue.message).join("; "));
  const env = envResult.data;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: CLI_OPTIONS,
    });
  } catch (error) {
    throw new UsageError(`${messageOf(error)}. Run invariant-web --help for usage.`);
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? "start";
  // The mock model is not the dashboard: without --port it takes a free port, never INVARIANT_PORT.
  const portText = command === "mock-model" ? (values.port ?? "0") : (values.port ?? env.INVARIANT_PORT);
  const port = portText === undefined ? DEFAULT_PORT : wholeNumber(portText, "--port must be a port number");
  const concurrencyText = values.concurrency ?? env.INVARIANT_WORKER_CONCURRENCY;
  const result = launchSchema.safeParse({
    port,
    host: values.host ?? env.INVARIANT_HOST ?? "127.0.0.1",
    dataDir: path.resolve(values["data-dir"] ?? env.INVARIANT_DATA_DIR ?? defaultDataDir(env)),
    redisUrl: values["redis-url"] ?? env.REDIS_URL ?? null,
    open:
      !values["no-open"] &&
      Boolean(env.DISPLAY ?? env.WAYLAND_DISPLAY ?? (process.platform === "darwin" ? "mac" : undefined)),
    worker: !values["no-worker"],
    baseImage: env.INVARIANT_BASE_IMAGE ?? "invariant-base:bookworm",
    hostCa: env.INVARIANT_HOST_CA ?? "auto",
    allowedHosts: commaList(env.INVARIANT_ALLOWED_HOSTS ?? ""),
    // trials mostly wait on containers (and their CPU quotas), so even a 2-core host runs two at once
    concurrency:
      concurrencyText === undefined
        ? Math.max(2, Math.min(8, os.availableParallelism()))
        : wholeNumber(concurrencyText, "--concurrency must be a whole number"),
    ...workerMibOf(env),
    json: values.json,
    child: values.child,
    sessionDays: Number(env.INVARIANT_SESSION_DAYS ?? 30),
    sessionIdleMinutes: Number(env.INVARIANT_SESSION_IDLE_MINUTES ?? 240),
    gcIntervalMinutes: Number(env.INVARIANT_GC_INTERVAL_MINUTES ?? 60),
    workerCacheDays: Number(env.INVARIANT_WORKER_CACHE_DAYS ?? DEFAULT_CACHE_DAYS),
    workspaceKind: env.INVARIANT_WORKSPACE_KIND ?? "auto",
  });
  if (!result.success) throw new UsageError(result.error.issues.map((issue) => issue.message).join("; "));
  return {
    ...result.data,
    command,
    positionals: positionals.slice(1),
    help: values.help,
    version: values.version,
    project: values.project ?? null,
    shellCommand: values.command ?? null,
    devcontainer: values.devcontainer,
    scriptsDir: values.scripts === undefined ? null : path.resolve(values.scripts),
    yes: values.yes,
    scripted: values.scripted,
    format: values.format ?? null,
    output: values.output === undefined ? null : path.resolve(values.output),
    workflow: workflowFlags(values),
    provider: providerOf(values.provider),
    accessToken: { file: values["token-file"] ?? null, value: env.INVARIANT_TOKEN ?? null },
    branchAuthor: authorOf(env.INVARIANT_BRANCH_AUTHOR),
    registry: registryOf({ flag: values.registry, env }),
    remote: orUsageError(
      remoteWorker({
        url: values["dashboard-url"] ?? env.INVARIANT_DASHBOARD_URL,
        tokenFile: values["worker-token-file"] ?? env.INVARIANT_WORKER_TOKEN_FILE,
        token: env.INVARIANT_WORKER_TOKEN,
      }),
    ),
    modelGateway: modelGatewayOf(env),
  };
}
