import os from "node:os";
import { runDoctor } from "../../core/diagnostics/doctor";
import { describeModelAccess, type ModelAccessOptions } from "../../core/credentials/model-access";
import { removeStoredApiKey, storeApiKey } from "../../core/credentials/stored-api-key";
import { browseFolders } from "../projects/folder-browser";
import { createBaseImageBuilder } from "./base-image-build";
import BASE_IMAGE from "../../../../scripts/base-image.json";
import type { ContainerRuntime } from "../../core/runtime/container-runtime";
import type { ModelAccessView, SetupCheckView, SetupStatusView } from "../../../shared/setup-schemas";

export interface SetupServiceDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  redisUrl: string;
  /** The global default base image (INVARIANT_BASE_IMAGE). */
  baseImage: string;
  modelAccess: Omit<ModelAccessOptions, "dataDir">;
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

function modelAccessCheck(view: ModelAccessView): SetupCheckView {
  const missing = view.source === "none";
  return {
    id: "model-access",
    title: "Model access",
    status: missing ? "fail" : "ok",
    required: true,
    detail: view.summary,
    fix: missing
      ? "Store an OpenAI API key below (or run `invariant-web login`), set OPENAI_API_KEY where you start invariant-web, or sign the host's Codex in with `codex login` (an API key or a ChatGPT account). Without model access the demo still runs on the bundled scripted model."
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
      const access = modelAccess();
      const checks: SetupCheckView[] = [
        ...doctor.checks.map((check) => ({ ...check, action: null })),
        await baseImageCheck(deps, dockerOk),
        modelAccessCheck(access),
      ];
      return {
        checkedAt: new Date().toISOString(),
        needed: checks.some((check) => check.required && check.status === "fail"),
        checks,
        modelAccess: access,
      };
    },

    /** Stores the key (mode 0600); only when it was set comes back. */
    storeApiKey(apiKey: string): { storedAt: string; modelAccess: ModelAccessView } {
      const { storedAt } = storeApiKey({ dataDir: deps.dataDir, apiKey });
      deps.log?.("setup: an API key was stored in the data dir");
      return { storedAt, modelAccess: modelAccess() };
    },

    /** The add-project form's folder picker: one folder's subfolders, inside the home directory or where invariant-web started. */
    browseFolders(folder: string | null) {
      return browseFolders({
        home: deps.home ?? os.homedir(),
        startedIn: deps.startedIn ?? process.cwd(),
        path: folder,
      });
    },

    removeApiKey(): { removed: boolean; modelAccess: ModelAccessView } {
      const removed = removeStoredApiKey(deps.dataDir);
      if (removed) deps.log?.("setup: the stored API key was removed");
      return { removed, modelAccess: modelAccess() };
    },
  };
}
export type SetupService = ReturnType<typeof createSetupService>;
