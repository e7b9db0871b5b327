import os from "node:os";
import { runDoctor } from "../../core/diagnostics/doctor";
import { describeModelAccess, type ModelAccessSettings } from "../../core/credentials/model-access";
import { describeProviderAccess, harnessAccess, harnessAccessText } from "../../core/credentials/provider-access";
import { removeStoredApiKey, storeApiKey } from "../../core/credentials/stored-api-key";
import { PROVIDER_INFO, type ModelProvider } from "../../../shared/harness-kinds";
import { browseFolders } from "../projects/folder-browser";
import { createBaseImageBuilder } from "./base-image-build";
import BASE_IMAGE from "../../../../scripts/base-image.json";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type {
  ModelAccessView,
  ProviderAccessView,
  SetupCheckView,
  SetupStatusView,
} from "../../../shared/setup-schemas";

export interface SetupServiceDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  redisUrl: string;
  /** The global default base image (INVARIANT_BASE_IMAGE). */
  baseImage: string;
  modelAccess: ModelAccessSettings;
  hostCa?: string;
  /** The home directory the add-project folder picker may list (default: this process's user's). */
  home?: string;
  /** The folder invariant-web was started in, browsable too (default: this process's working directory). */
  startedIn?: string;
  /** The package root, whose scripts/base-image.mjs builds the base image. */
  root: string;
  log?: (message: string) => void;
}

async function baseImageCheck(deps: SetupServiceDeps, dockerOk: boolean): Promise<SetupCheckView> {
  const common = { id: "base-image", title: "Base image", required: true } as const;
  const build = `Build it here with the button (about a minute; it runs scripts/base-image.mjs: debootstrap from the Debian mirror, then docker import), or run \`node scripts/base-image.mjs\` yourself, or set INVARIANT_BASE_IMAGE to an image you have.`;
  if (!dockerOk)
    return {
      ...common,
      status: "fail",
      detail: `${deps.baseImage}: unknown until Docker answers`,
      fix: null,
      action: null,
    };
  const image = await deps.runtime.inspectImage(deps.baseImage).catch(() => null);
  const revision = image?.labels[BASE_IMAGE.label];
  // built by scripts/base-image.mjs: labelled since revision 2, and named invariant-base:* before
  const ours = revision !== undefined || deps.baseImage.startsWith("invariant-base:");
  if (image && ours && revision !== BASE_IMAGE.revision)
    return {
      ...common,
      status: "warn",
      detail: `${deps.baseImage} is an older build (revision ${revision ?? "1"}: Node.js 18 from Debian, no npm, no build tools)`,
      fix: `Rebuild it with the button (or \`node scripts/base-image.mjs\`): the new one has Node.js 24 with npm and python3, make, g++ for native modules. Versions already built keep theirs until Rebuild from base image.`,
      action: "build-base-image",
    };
  return image
    ? {
        ...common,
        status: "ok",
        detail: `${deps.baseImage} (${(image.sizeBytes / 1024 ** 2).toFixed(0)} MiB)`,
        fix: null,
        action: null,
      }
    : {
        ...common,
        status: "fail",
        detail: `${deps.baseImage} is not in Docker`,
        fix: build,
        action: "build-base-image",
      };
}

/** Model access: ready when any provider has it; the detail says which harnesses that makes usable. */
function modelAccessCheck(providers: ProviderAccessView[]): SetupCheckView {
  const missing = providers.every((view) => !view.signedIn);
  return {
    id: "model-access",
    title: "Model access",
    status: missing ? "fail" : "ok",
    required: true,
    detail: harnessAccessText(providers),
    fix: missing
      ? "Store an API key below for OpenAI (Codex), Anthropic (Claude Code) or Google (Gemini CLI), or run `invariant-web login --provider openai|anthropic|google`; or set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY where you start invariant-web, or sign the host's Codex in with `codex login`. Without model access the demo still runs on the bundled scripted model."
      : null,
    action: missing ? "store-key" : null,
  };
}

/**
 * The Setup page: the doctor's checks, the base image and model access, each with its fix; storing
 * and removing the API key. Nothing here returns a secret.
 */
export function createSetupService(deps: SetupServiceDeps) {
  const modelAccess = () => describeModelAccess({ ...deps.modelAccess, dataDir: deps.dataDir });
  const providers = () => describeProviderAccess({ ...deps.modelAccess, dataDir: deps.dataDir });
  const baseImage = createBaseImageBuilder({
    root: deps.root,
    baseImage: deps.baseImage,
    ...(deps.log ? { log: deps.log } : {}),
  });
  return {
    modelAccess,
    /** Starts building the base image (or returns the build under way); `baseImageBuild` follows it. */
    buildBaseImage: () => baseImage.start(),
    baseImageBuild: () => baseImage.status(),

    async status(): Promise<SetupStatusView> {
      const doctor = await runDoctor({
        runtime: deps.runtime,
        dataDir: deps.dataDir,
        redisUrl: deps.redisUrl,
        ...(deps.hostCa ? { hostCa: deps.hostCa } : {}),
      });
      const dockerOk = doctor.checks.some((check) => check.id === "docker" && check.status === "ok");
      const access = providers();
      const checks: SetupCheckView[] = [
        ...doctor.checks.map((check) => ({ ...check, action: null })),
        await baseImageCheck(deps, dockerOk),
        modelAccessCheck(access),
      ];
      return {
        checkedAt: new Date().toISOString(),
        needed: checks.some((check) => check.required && check.status === "fail"),
        checks,
        modelAccess: modelAccess(),
        providers: access,
        harnesses: harnessAccess(access),
      };
    },

    /** Stores the provider's key (mode 0600; a refused key writes nothing); only when it was set comes back. */
    storeApiKey(
      apiKey: string,
      provider: ModelProvider = "openai",
    ): { storedAt: string; modelAccess: ModelAccessView; providers: ProviderAccessView[] } {
      const { storedAt } = storeApiKey({ dataDir: deps.dataDir, apiKey, provider });
      deps.log?.(`setup: the ${PROVIDER_INFO[provider].label} API key was stored in the data dir`);
      return { storedAt, modelAccess: modelAccess(), providers: providers() };
    },

    /** The add-project form's folder picker: one folder's subfolders, inside the home directory or where invariant-web started. */
    browseFolders(folder: string | null) {
      return browseFolders({
        home: deps.home ?? os.homedir(),
        startedIn: deps.startedIn ?? process.cwd(),
        path: folder,
      });
    },

    removeApiKey(provider: ModelProvider = "openai"): {
      removed: boolean;
      modelAccess: ModelAccessView;
      providers: ProviderAccessView[];
    } {
      const removed = removeStoredApiKey(deps.dataDir, provider);
      if (removed) deps.log?.(`setup: the stored ${PROVIDER_INFO[provider].label} API key was removed`);
      return { removed, modelAccess: modelAccess(), providers: providers() };
    },
  };
}
export type SetupService = ReturnType<typeof createSetupService>;
