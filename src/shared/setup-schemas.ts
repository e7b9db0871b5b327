/** The Setup page's view of this installation (shared by server and browser). Never holds a secret. */
import type { ModelProvider } from "./harness-kinds";
import type { HarnessKind } from "./vocabulary";

export type SetupCheckStatus = "ok" | "warn" | "fail";

/** Where the model gateway's credential comes from now, in the order it is looked up. */
export type ModelAccessSource = "environment" | "stored-key" | "codex-api-key" | "codex-chatgpt" | "none";

export interface ModelAccessView {
  source: ModelAccessSource;
  /** One sentence: what is used, or what is missing. */
  summary: string;
  /** When a key was stored on the Setup page or with `invariant-web login` (the key itself is never shown). */
  storedKeyAt: string | null;
  /** OPENAI_API_KEY is set where invariant-web was started (it wins over a stored key). */
  environmentKey: boolean;
  /** The host Codex home whose auth.json is used last. */
  codexHome: string;
}

/** One model provider's access, as the gateway will look it up (its environment variable, then the stored key). */
export interface ProviderAccessView {
  provider: ModelProvider;
  label: string;
  signedIn: boolean;
  source: ModelAccessSource;
  /** One sentence: what is used, or what is missing and how to add it. */
  summary: string;
  /** The environment variable(s) that set this provider's key ("GEMINI_API_KEY or GOOGLE_API_KEY"). */
  variable: string;
  /** The variable is set where invariant-web was started (it wins over a stored key). */
  environmentKey: boolean;
  storedKeyAt: string | null;
  /** The stored key's last four characters, the only part of it ever shown; null when none is stored. */
  storedKeyEnding: string | null;
}

/** Whether a harness kind can run now: agent CLIs need their provider's access; `scripted:` models need none. */
export interface HarnessAccessView {
  kind: HarnessKind;
  label: string;
  provider: ModelProvider;
  usable: boolean;
}

export interface SetupCheckView {
  id:
    | "node"
    | "docker"
    | "redis"
    | "disk"
    | "codex"
    | "claude-code"
    | "gemini-cli"
    | "certificates"
    | "base-image"
    | "model-access";
  title: string;
  status: SetupCheckStatus;
  /** Needed for studies to run (a failing one opens the dashboard on the checklist). */
  required: boolean;
  detail: string;
  fix: string | null;
  /** Something the dashboard can do about it here. */
  action: "store-key" | "build-base-image" | null;
}

export interface SetupStatusView {
  checkedAt: string;
  /** Something required is missing: the dashboard opens on the checklist. */
  needed: boolean;
  checks: SetupCheckView[];
  /** OpenAI's access in detail (the Codex sign-in included), as before there were other providers. */
  modelAccess: ModelAccessView;
  providers: ProviderAccessView[];
  harnesses: HarnessAccessView[];
}

/** The Setup page's base image build: running or how it ended, with the tail of its output. */
export interface BaseImageBuildView {
  running: boolean;
  startedAt: string;
  finishedAt: string | null;
  exitCode: number | null;
  output: string;
}
