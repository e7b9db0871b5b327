"use client";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { buttonClass, ErrorMessage, FieldError, inputClass, secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import type { EnvironmentVersion } from "./use-environment";

/**
 * "Prepare environment" (or rebuild from the base image) and "Prepare with a command" on the active version; the
 * page's status leads with the first preparation, so here it is a secondary button.
 */
export function EnvironmentActions({
  projectId,
  versions,
  active,
  building,
  refresh,
  otherError,
}: {
  projectId: string;
  versions: readonly EnvironmentVersion[];
  active: EnvironmentVersion | undefined;
  building: boolean;
  refresh: () => Promise<void>;
  /** An error of an action on a version (make active, delete), shown with these. */
  otherError: unknown;
}) {
  const trpc = useTRPC();
  const prepare = useMutation(trpc.environments.prepare.mutationOptions({ onSuccess: refresh }));
  const actionError = prepare.error ?? otherError;
  return (
    <div className="mb-4 grid gap-3">
      <div>
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={building || prepare.isPending}
          onClick={() => prepare.mutate({ projectId })}
        >
          {versions.length === 0 ? "Prepare environment" : "Rebuild from base image"}
        </button>
      </div>
      {active ? (
        <PrepareWithCommand projectId={projectId} version={active.version} building={building} refresh={refresh} />
      ) : null}
      {actionError ? <ErrorMessage>{describeError(actionError).message}</ErrorMessage> : null}
    </div>
  );
}

function PrepareWithCommand({
  projectId,
  version,
  building,
  refresh,
}: {
  projectId: string;
  version: number;
  building: boolean;
  refresh: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const [command, setCommand] = useState("");
  const [network, setNetwork] = useState(true);
  const prepareWithCommand = useMutation(
    trpc.environments.prepareWithCommand.mutationOptions({
      onSuccess: async () => {
        setCommand("");
        await refresh();
      },
    }),
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    prepareWithCommand.mutate({ projectId, command, network });
  }
  return (
    <form onSubmit={submit} className="flex items-start gap-3" aria-label="Prepare with a command">
      <div className="flex-1">
        <label htmlFor="prepare-command" className="mb-1 block text-sm text-muted">
          Prepare with a command (runs in version {version}; on success it becomes a new version)
        </label>
        <input
          id="prepare-command"
          className={`${inputClass} font-mono`}
          placeholder="apt-get install -y ripgrep"
          value={command}
          onChange={(e) => setCommand(e.target.value)}
          aria-describedby="prepare-command-error"
        />
        <label className="mt-1 flex items-center gap-2 text-xs text-muted">
          <input type="checkbox" checked={network} onChange={(e) => setNetwork(e.target.checked)} />
          With network (your own command, e.g. apt-get; agents and tests keep the project&apos;s network mode)
        </label>
        <FieldError
          id="prepare-command-error"
          message={prepareWithCommand.error ? describeError(prepareWithCommand.error).message : null}
        />
      </div>
      <button type="submit" className={`${buttonClass} mt-6`} disabled={building || prepareWithCommand.isPending}>
        Run
      </button>
    </form>
  );
}
