"use client";
import type { HarnessAccessView, ProviderAccessView, SetupStatusView } from "../../shared/setup-schemas";
import { Panel } from "../_components/ui";
import { ApiKeyForm } from "./api-key-form";

const SOURCE_WORDS: Record<ProviderAccessView["source"], string> = {
  environment: "environment variable",
  "stored-key": "stored key",
  "codex-api-key": "host's Codex sign-in (API key)",
  "codex-chatgpt": "host's Codex sign-in (ChatGPT account)",
  none: "",
};

/** "Signed in · stored key …abcd" or "Not signed in", the stored key shown by its last four characters only. */
function accessLine(view: ProviderAccessView): string {
  if (!view.signedIn) return "Not signed in";
  const ending = view.source === "stored-key" && view.storedKeyEnding ? ` …${view.storedKeyEnding}` : "";
  return `Signed in · ${SOURCE_WORDS[view.source]}${ending}`;
}

/** Which harnesses can run now, each with the provider it needs. */
function HarnessList({ harnesses }: { harnesses: HarnessAccessView[] }) {
  return (
    <ul className="mb-4 flex flex-wrap gap-x-5 gap-y-1 text-sm" aria-label="Harnesses">
      {harnesses.map((harness) => (
        <li key={harness.kind} className={harness.usable ? "text-ok" : "text-muted"}>
          <span aria-hidden="true">{harness.usable ? "✓ " : "✗ "}</span>
          {harness.usable ? `${harness.label} usable` : `${harness.label} not usable`}
        </li>
      ))}
      <li className="text-muted">scripted: models need no access</li>
    </ul>
  );
}

function ProviderCard({ view, codexHome, isAdmin }: { view: ProviderAccessView; codexHome: string; isAdmin: boolean }) {
  const stored = view.storedKeyAt ? new Date(view.storedKeyAt).toLocaleString() : null;
  return (
    <section className="rounded-lg border border-line px-4 py-3" aria-label={view.label}>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h3 className="text-sm font-medium">{view.label}</h3>
        <span className={`text-xs ${view.signedIn ? "text-ok" : "text-warn-soft"}`} data-testid="provider-access">
          {accessLine(view)}
        </span>
        {stored ? <span className="text-xs text-muted">stored {stored}</span> : null}
      </div>
      <p className="mt-1 break-words text-sm text-muted">{view.summary}</p>
      {view.provider === "openai" ? (
        <p className="mt-1 break-words text-xs text-muted">
          Looked up for every model request, in this order: OPENAI_API_KEY, the key stored here, then the host&apos;s
          Codex sign-in in {codexHome}/auth.json (an API key, or a ChatGPT account whose access token is refreshed when
          it expires).
        </p>
      ) : (
        <p className="mt-1 break-words text-xs text-muted">
          Looked up for every model request: {view.variable}, then the key stored here.
        </p>
      )}
      {isAdmin ? (
        <div className="mt-3">
          <ApiKeyForm access={view} />
        </div>
      ) : null}
    </section>
  );
}

/**
 * Model access per provider: whether each is signed in and from where, a form to paste or remove its key
 * (admin), and which harnesses that makes usable. No key ever reaches this page (its last four characters at most).
 */
export function ModelAccessPanel({ status, isAdmin }: { status: SetupStatusView; isAdmin: boolean }) {
  return (
    <Panel title="Model access">
      <p className="mb-3 text-sm text-muted">
        Each agent reaches its provider through the model gateway, which holds the key; containers get a per-run token
        only. From a terminal: <code>invariant-web login --provider openai|anthropic|google</code> (and{" "}
        <code>logout</code>).
      </p>
      <HarnessList harnesses={status.harnesses} />
      <div className="grid gap-3">
        {status.providers.map((view) => (
          <ProviderCard key={view.provider} view={view} codexHome={status.modelAccess.codexHome} isAdmin={isAdmin} />
        ))}
      </div>
      {isAdmin ? null : <p className="mt-3 text-sm text-muted">Only the admin can change model access.</p>}
    </Panel>
  );
}
