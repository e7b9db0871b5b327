"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../server/web/trpc/app-router";
import { useState, type FormEvent } from "react";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { CopyButton } from "../_components/copy-button";
import { buttonClass, FieldError, inputClass, Panel, secondaryButtonClass } from "../_components/ui";

const EXPIRY_CHOICES: { label: string; days: number | null }[] = [
  { label: "Never expires", days: null },
  { label: "Expires in 1 day", days: 1 },
  { label: "Expires in 7 days", days: 7 },
  { label: "Expires in 30 days", days: 30 },
  { label: "Expires in 90 days", days: 90 },
];

function expiryText(expiresAt: string): string {
  const when = new Date(expiresAt);
  return when.getTime() <= Date.now() ? `expired ${when.toLocaleString()}` : `expires ${when.toLocaleString()}`;
}

type ViewerLink = inferRouterOutputs<AppRouter>["system"]["viewerLinks"][number];

function ViewerLinkList({ links, onRevoke }: { links: ViewerLink[] | undefined; onRevoke: (id: string) => void }) {
  return (
    <ul className="divide-y divide-line" aria-label="Viewer links">
      {(links ?? []).map((link) => (
        <li key={link.id} className="flex items-center justify-between py-2 text-sm">
          <span>
            {link.label}{" "}
            <span className="text-xs text-muted">
              created {new Date(link.createdAt).toLocaleString()}
              {link.expiresAt ? `, ${expiryText(link.expiresAt)}` : ""}
            </span>
          </span>
          {link.revokedAt ? (
            <span className="text-xs text-muted">revoked</span>
          ) : (
            <button
              type="button"
              className={secondaryButtonClass}
              onClick={() => onRevoke(link.id)}
              aria-label={`Revoke ${link.label}`}
            >
              Revoke
            </button>
          )}
        </li>
      ))}
      {links?.length === 0 ? (
        <li className="py-2 text-sm text-muted">
          No viewer links yet. Create one above to let a teammate follow the studies on this host, read-only.
        </li>
      ) : null}
    </ul>
  );
}

/** How long a new link works; "never" keeps it until it is revoked. */
function ExpirySelect({ value, onChange }: { value: number | null; onChange: (days: number | null) => void }) {
  return (
    <div>
      <label htmlFor="viewer-expiry" className="sr-only">
        Expires
      </label>
      <select
        id="viewer-expiry"
        className={inputClass}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value === "" ? null : Number(e.target.value))}
      >
        {EXPIRY_CHOICES.map((choice) => (
          <option key={choice.label} value={choice.days ?? ""}>
            {choice.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ViewerLinks() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const links = useQuery(trpc.system.viewerLinks.queryOptions());
  const [label, setLabel] = useState("");
  const [expiresInDays, setExpiresInDays] = useState<number | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.system.viewerLinks.queryKey() });
  const create = useMutation(
    trpc.system.createViewerLink.mutationOptions({
      onSuccess: async (result) => {
        setCreated(result.url);
        setLabel("");
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.system.revokeViewerLink.mutationOptions({ onSuccess: refresh }));

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ label, expiresInDays });
  }

  return (
    <Panel title="Viewer links">
      <p className="mb-3 text-sm text-muted">
        Read-only links for team members on this host: they see every project and study and can download reports, but
        cannot change anything.
      </p>
      <form onSubmit={submit} className="mb-4 flex flex-wrap items-start gap-3" aria-label="Create viewer link">
        <div className="min-w-56 flex-1">
          <label htmlFor="viewer-label" className="sr-only">
            Label
          </label>
          <input
            id="viewer-label"
            className={inputClass}
            placeholder="Label, e.g. Dana"
            value={label}
            onChange={(e) => setLabel(e.target.value)}
          />
          <FieldError id="viewer-label-error" message={create.error ? describeError(create.error).message : null} />
        </div>
        <ExpirySelect value={expiresInDays} onChange={setExpiresInDays} />
        <button type="submit" className={buttonClass} disabled={create.isPending}>
          Create viewer link
        </button>
      </form>
      {created ? (
        <div className="mb-4 rounded-md border border-ok-strong/50 bg-ok-strong/10 p-3 text-sm">
          <p className="mb-1 flex items-center justify-between gap-2">
            Copy this link now; it is shown only once: <CopyButton text={created} label="Copy link" />
          </p>
          <code data-testid="new-viewer-link" className="block break-all font-mono text-xs">
            {created}
          </code>
        </div>
      ) : null}
      <ViewerLinkList links={links.data} onRevoke={(id) => revoke.mutate({ id })} />
    </Panel>
  );
}
