"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState, type FormEvent } from "react";
import type { RecordedEvent } from "../../../shared/event-catalog";
import { describeError } from "../../_lib/errors";
import { formatBytes } from "../../_lib/format";
import { useRoomEvents } from "../../_lib/socket";
import { useTRPC } from "../../_lib/trpc";
import {
  buttonClass,
  dangerButtonClass,
  FieldError,
  inputClass,
  Panel,
  secondaryButtonClass,
} from "../../_components/ui";

const statusStyle = { building: "text-amber-300", ready: "text-emerald-400", failed: "text-red-400" } as const;

/** The last "[k/n]" step marker in a build log, as a fraction for the progress bar. */
function progressOf(log: string): number | null {
  const steps = [...log.matchAll(/\[(\d+)\/(\d+)\]/g)].at(-1);
  return steps ? Number(steps[1]) / Number(steps[2]) : null;
}

export function EnvironmentPanel({ projectId, readOnly }: { projectId: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  const building = overview.data?.versions.find((v) => v.status === "building") ?? null;
  const [selected, setSelected] = useState<string | null>(null);
  const logVersion = building?.id ?? selected;
  const savedLog = useQuery(
    trpc.environments.log.queryOptions({ versionId: logVersion ?? "" }, { enabled: logVersion !== null }),
  );
  const [liveLog, setLiveLog] = useState<Record<string, string>>({});
  const [command, setCommand] = useState("");

  const refresh = useCallback(
    () => queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() }),
    [queryClient, trpc],
  );
  const onEvent = useCallback(
    ({ event }: RecordedEvent) => {
      if (event.type === "environment.log")
        setLiveLog((current) => ({
          ...current,
          [event.data.versionId]: (current[event.data.versionId] ?? "") + event.data.text,
        }));
      if (event.type === "environment.finished" || event.type === "environment.started") void refresh();
    },
    [refresh],
  );
  useRoomEvents(`project:${projectId}`, onEvent);

  const prepare = useMutation(trpc.environments.prepare.mutationOptions({ onSuccess: refresh }));
  const prepareWithCommand = useMutation(
    trpc.environments.prepareWithCommand.mutationOptions({
      onSuccess: async () => {
        setCommand("");
        await refresh();
      },
    }),
  );
  const activate = useMutation(trpc.environments.activate.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.environments.remove.mutationOptions({ onSuccess: refresh }));
  const actionError = [prepare.error, activate.error, remove.error].find(Boolean);

  const log = logVersion
    ? liveLog[logVersion] && liveLog[logVersion].length > (savedLog.data?.length ?? 0)
      ? liveLog[logVersion]
      : (savedLog.data ?? "")
    : "";
  const progress = building ? progressOf(log) : null;
  const versions = overview.data?.versions ?? [];
  const active = versions.find((v) => v.active);

  function submitCommand(event: FormEvent) {
    event.preventDefault();
    prepareWithCommand.mutate({ projectId, command });
  }

  return (
    <Panel title="Environment" className="mb-6">
      {overview.isPending ? <p className="text-sm text-muted">Loading environment…</p> : null}
      {overview.data && versions.length === 0 ? (
        <p className="mb-3 text-sm text-muted">
          No environment yet. Preparing builds version 1 from the base image: the Codex CLI and a home directory that
          persists. Later changes (tools, packages, config) become new versions you can roll back.
        </p>
      ) : null}
      {overview.data && versions.length > 0 ? (
        <p className="mb-3 text-sm text-muted">
          Active: {active ? <strong className="text-ink">version {active.version}</strong> : "none"} · disk used by this
          project&apos;s environments: {formatBytes(overview.data.diskBytes)}
        </p>
      ) : null}

      {!readOnly ? (
        <div className="mb-4 grid gap-3">
          <div>
            <button
              type="button"
              className={versions.length === 0 ? buttonClass : secondaryButtonClass}
              disabled={building !== null || prepare.isPending}
              onClick={() => prepare.mutate({ projectId })}
            >
              {versions.length === 0 ? "Prepare environment" : "Rebuild from base image"}
            </button>
          </div>
          {active ? (
            <form onSubmit={submitCommand} className="flex items-start gap-3" aria-label="Prepare with a command">
              <div className="flex-1">
                <label htmlFor="prepare-command" className="mb-1 block text-sm text-muted">
                  Prepare with a command (runs in version {active.version}; on success it becomes a new version)
                </label>
                <input
                  id="prepare-command"
                  className={`${inputClass} font-mono`}
                  placeholder="apt-get install -y ripgrep"
                  value={command}
                  onChange={(e) => setCommand(e.target.value)}
                  aria-describedby="prepare-command-error"
                />
                <FieldError
                  id="prepare-command-error"
                  message={prepareWithCommand.error ? describeError(prepareWithCommand.error).message : null}
                />
              </div>
              <button
                type="submit"
                className={`${buttonClass} mt-6`}
                disabled={building !== null || prepareWithCommand.isPending}
              >
                Run
              </button>
            </form>
          ) : null}
          {actionError ? (
            <p role="alert" className="text-sm text-red-400">
              {describeError(actionError).message}
            </p>
          ) : null}
        </div>
      ) : null}

      {building ? (
        <div className="mb-4" role="status" aria-label="Build progress">
          <p className="mb-1 text-sm">Preparing version {building.version}…</p>
          <div className="h-2 overflow-hidden rounded bg-line">
            <div
              className={`h-full bg-accent transition-all ${progress === null ? "w-1/3 animate-pulse" : ""}`}
              style={progress === null ? undefined : { width: `${Math.round(progress * 100)}%` }}
            />
          </div>
        </div>
      ) : null}

      {versions.length > 0 ? (
        <table className="mb-4 w-full text-left text-sm" aria-label="Environment versions">
          <thead className="text-xs uppercase text-muted">
            <tr>
              <th className="py-1">Version</th>
              <th>State</th>
              <th>Made by</th>
              <th>Size</th>
              <th>Took</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.id} className="border-t border-line align-top">
                <td className="py-1.5">
                  v{v.version}{" "}
                  {v.active ? (
                    <span className="ml-1 rounded-full border border-emerald-500/60 px-2 text-xs text-emerald-300">
                      active
                    </span>
                  ) : null}
                  {v.parentVersion ? <span className="block text-xs text-muted">from v{v.parentVersion}</span> : null}
                </td>
                <td className={statusStyle[v.status]}>
                  {v.status}
                  {v.error ? <span className="block max-w-md text-xs text-red-300">{v.error}</span> : null}
                </td>
                <td className="max-w-xs truncate font-mono text-xs" title={v.command ?? "base image"}>
                  {v.origin === "base" ? "base image" : v.command}
                </td>
                <td>{v.sizeBytes === null ? "—" : formatBytes(v.sizeBytes)}</td>
                <td>{v.durationMs === null ? "—" : `${(v.durationMs / 1000).toFixed(1)} s`}</td>
                <td className="space-x-2 whitespace-nowrap text-right">
                  <button type="button" className="text-xs text-accent underline" onClick={() => setSelected(v.id)}>
                    Log
                  </button>
                  {!readOnly && v.status === "ready" && !v.active ? (
                    <button
                      type="button"
                      className={secondaryButtonClass}
                      onClick={() => activate.mutate({ versionId: v.id })}
                    >
                      Make active
                    </button>
                  ) : null}
                  {!readOnly && !v.active && v.status !== "building" ? (
                    <button
                      type="button"
                      className={dangerButtonClass}
                      onClick={() => remove.mutate({ versionId: v.id })}
                      aria-label={`Delete version ${v.version}`}
                    >
                      Delete
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      {logVersion ? (
        <pre
          aria-label="Build log"
          className="max-h-72 overflow-auto rounded-md border border-line bg-[#0b0d12] p-3 font-mono text-xs text-muted"
        >
          {log || "No output yet."}
        </pre>
      ) : null}
    </Panel>
  );
}
