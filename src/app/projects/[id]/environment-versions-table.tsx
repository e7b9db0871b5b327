"use client";
import { DataTable, type Column } from "../../_components/data-table";
import { dangerButtonClass, secondaryButtonClass } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";
import type { EnvironmentVersion } from "./use-environment";

const statusStyle = { building: "text-warn-soft", ready: "text-ok", failed: "text-danger" } as const;

/** How the version was made, as the list says it. */
function madeBy(v: EnvironmentVersion): string | null {
  if (v.origin === "base") return "base image";
  if (v.origin === "dependencies") return `dependencies: ${v.command}`;
  if (v.origin === "devcontainer") return `from ${v.devcontainer?.file ?? "devcontainer.json"}`;
  return v.command;
}

interface VersionActions {
  readOnly: boolean;
  onShowLog: (versionId: string) => void;
  onActivate: (versionId: string) => void;
  onRemove: (versionId: string) => void;
}

function versionColumns({ readOnly, onShowLog, onActivate, onRemove }: VersionActions): Column<EnvironmentVersion>[] {
  return [
    {
      key: "version",
      header: "Version",
      cell: (v) => (
        <>
          v{v.version}{" "}
          {v.active ? (
            <span className="ml-1 rounded-full border border-ok-strong/60 px-2 text-xs text-ok-soft">active</span>
          ) : null}
          {v.parentVersion ? <span className="block text-xs text-muted">from v{v.parentVersion}</span> : null}
        </>
      ),
    },
    {
      key: "state",
      header: "State",
      className: (v) => statusStyle[v.status],
      cell: (v) => (
        <>
          {v.status}
          {v.error ? <span className="block max-w-md text-xs text-danger-soft">{v.error}</span> : null}
        </>
      ),
    },
    {
      key: "made-by",
      header: "Made by",
      className: "font-mono text-xs",
      cellProps: (v) => ({ title: madeBy(v) ?? "" }),
      // a block with a max width: a table cell's own max-width does not hold against nowrap text
      cell: (v) => <span className="block max-w-[10rem] truncate sm:max-w-xs">{madeBy(v)}</span>,
    },
    { key: "size", header: "Size", cell: (v) => (v.sizeBytes === null ? "—" : formatBytes(v.sizeBytes)) },
    {
      key: "took",
      header: "Took",
      cell: (v) => (v.durationMs === null ? "—" : `${(v.durationMs / 1000).toFixed(1)} s`),
    },
    {
      key: "actions",
      header: null,
      className: "space-x-2 whitespace-nowrap text-right",
      cell: (v) => (
        <>
          <button type="button" className="text-xs text-accent underline" onClick={() => onShowLog(v.id)}>
            Log
          </button>
          {!readOnly && v.status === "ready" && !v.active ? (
            <button type="button" className={secondaryButtonClass} onClick={() => onActivate(v.id)}>
              Make active
            </button>
          ) : null}
          {!readOnly && !v.active && v.status !== "building" ? (
            <button
              type="button"
              className={dangerButtonClass}
              onClick={() => onRemove(v.id)}
              aria-label={`Delete version ${v.version}`}
            >
              Delete
            </button>
          ) : null}
        </>
      ),
    },
  ];
}

/** Every version of a project's environment: state, origin, size, build time; its log, make active, delete. */
export function EnvironmentVersionsTable({
  versions,
  ...actions
}: VersionActions & { versions: readonly EnvironmentVersion[] }) {
  return (
    <DataTable
      label="Environment versions"
      density="flush"
      wrapperClassName="mb-4 overflow-x-auto"
      columns={versionColumns(actions)}
      rows={versions}
      rowKey={(v) => v.id}
      rowClassName="border-t border-line align-top"
    />
  );
}
