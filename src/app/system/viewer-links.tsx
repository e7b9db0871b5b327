"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { buttonClass, FieldError, inputClass, Panel, secondaryButtonClass } from "../_components/ui";

export function ViewerLinks() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const links = useQuery(trpc.system.viewerLinks.queryOptions());
  const [label, setLabel] = useState("");
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
    create.mutate({ label });
  }

  return (
    <Panel title="Viewer links">
      <p className="mb-3 text-sm text-muted">
        Read-only links for team members on this host: they see every project and study and can download reports, but
        cannot change anything.
      </p>
      <form onSubmit={submit} className="mb-4 flex items-start gap-3" aria-label="Create viewer link">
        <div className="flex-1">
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
        <button type="submit" className={buttonClass} disabled={create.isPending}>
          Create viewer link
        </button>
      </form>
      {created ? (
        <div className="mb-4 rounded-md border border-ok-strong/50 bg-ok-strong/10 p-3 text-sm">
          <p className="mb-1">Copy this link now; it is shown only once:</p>
          <code data-testid="new-viewer-link" className="block break-all font-mono text-xs">
            {created}
          </code>
        </div>
      ) : null}
      <ul className="divide-y divide-line" aria-label="Viewer links">
        {(links.data ?? []).map((link) => (
          <li key={link.id} className="flex items-center justify-between py-2 text-sm">
            <span>
              {link.label}{" "}
              <span className="text-xs text-muted">created {new Date(link.createdAt).toLocaleString()}</span>
            </span>
            {link.revokedAt ? (
              <span className="text-xs text-muted">revoked</span>
            ) : (
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() => revoke.mutate({ id: link.id })}
                aria-label={`Revoke ${link.label}`}
              >
                Revoke
              </button>
            )}
          </li>
        ))}
        {links.data?.length === 0 ? <li className="py-2 text-sm text-muted">No viewer links yet.</li> : null}
      </ul>
    </Panel>
  );
}
