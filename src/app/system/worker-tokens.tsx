"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../server/web/trpc/app-router";
import { useState, type FormEvent } from "react";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { CopyButton } from "../_components/copy-button";
import { buttonClass, FieldError, inputClass, Panel, secondaryButtonClass } from "../_components/ui";

type WorkerToken = inferRouterOutputs<AppRouter>["system"]["workerTokens"][number];

function TokenList({ tokens, onRevoke }: { tokens: WorkerToken[] | undefined; onRevoke: (id: string) => void }) {
  return (
    <ul className="divide-y divide-line" aria-label="Worker tokens">
      {(tokens ?? []).map((token) => (
        <li key={token.id} className="flex items-center justify-between gap-3 py-2 text-sm">
          <span>
            {token.name}{" "}
            <span className="text-xs text-muted">
              created {new Date(token.createdAt).toLocaleString()},{" "}
              {token.lastUsedAt ? `last used ${new Date(token.lastUsedAt).toLocaleString()}` : "never used"}
            </span>
          </span>
          {token.revokedAt ? (
            <span className="text-xs text-muted">revoked {new Date(token.revokedAt).toLocaleString()}</span>
          ) : (
            <button
              type="button"
              className={secondaryButtonClass}
              onClick={() => onRevoke(token.id)}
              aria-label={`Revoke ${token.name}`}
            >
              Revoke
            </button>
          )}
        </li>
      ))}
      {tokens?.length === 0 ? (
        <li className="py-2 text-sm text-muted">
          No worker tokens yet. Create one to run a worker on another machine (see docs/scaling.md).
        </li>
      ) : null}
    </ul>
  );
}

/** Tokens for workers on other hosts: created here (shown once), listed with their last use, revocable. */
export function WorkerTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.system.workerTokens.queryOptions());
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.system.workerTokens.queryKey() });
  const create = useMutation(
    trpc.system.createWorkerToken.mutationOptions({
      onSuccess: async (result) => {
        setCreated(result.token);
        setName("");
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.system.revokeWorkerToken.mutationOptions({ onSuccess: refresh }));

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name });
  }

  return (
    <Panel title="Worker tokens">
      <p className="mb-3 text-sm text-muted">
        A worker on another machine fetches snapshots, test files and images from this dashboard and sends results back
        over HTTP with one of these tokens. It opens the worker API only; revoking it refuses that worker at once.
      </p>
      <form onSubmit={submit} className="mb-4 flex flex-wrap items-start gap-3" aria-label="Create worker token">
        <div className="min-w-56 flex-1">
          <label htmlFor="worker-token-name" className="sr-only">
            Name
          </label>
          <input
            id="worker-token-name"
            className={inputClass}
            placeholder="Name, e.g. build-box-2"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <FieldError
            id="worker-token-name-error"
            message={create.error ? describeError(create.error).message : null}
          />
        </div>
        <button type="submit" className={buttonClass} disabled={create.isPending}>
          Create worker token
        </button>
      </form>
      {created ? (
        <div className="mb-4 rounded-md border border-ok-strong/50 bg-ok-strong/10 p-3 text-sm">
          <p className="mb-1 flex items-center justify-between gap-2">
            Copy this token now; it is shown only once. Put it in a file (mode 600) on the worker&apos;s machine and
            start it with --worker-token-file: <CopyButton text={created} label="Copy token" />
          </p>
          <code data-testid="new-worker-token" className="block break-all font-mono text-xs">
            {created}
          </code>
        </div>
      ) : null}
      <TokenList tokens={tokens.data} onRevoke={(id) => revoke.mutate({ id })} />
    </Panel>
  );
}
