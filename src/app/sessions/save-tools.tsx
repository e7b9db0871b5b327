"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { InstalledToolsChangesView } from "../../shared/session-schemas";
import { buttonClass, ErrorMessage, smallButtonClass, Spinner, warnBoxClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { formatBytes } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** "added 12, changed 3, deleted 1 paths (most in /usr/local: 10, /etc: 3); 4.2 MB written". */
function describeChanges(changes: InstalledToolsChangesView): string {
  const folders = changes.topFolders.map((entry) => `${entry.folder}: ${entry.paths}`).join(", ");
  return `added ${changes.added}, changed ${changes.changed} and deleted ${plural(changes.deleted, "path")}${folders ? ` (most in ${folders})` : ""}; ${formatBytes(changes.sizeBytes)} written`;
}

/** The confirmation: what the container changed outside /workspace and /tmp, then Save or Cancel; nothing → says so. */
function ConfirmSave({
  sessionId,
  onCancel,
  onSaved,
}: {
  sessionId: string;
  onCancel: () => void;
  onSaved: (text: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const changes = useQuery(
    trpc.sessions.installedToolsChanges.queryOptions({ sessionId }, { staleTime: 0, gcTime: 0, retry: false }),
  );
  const save = useMutation(
    trpc.sessions.saveInstalledTools.mutationOptions({
      onSuccess: (version) => {
        onSaved(`Saved as environment version ${version.version}; new sessions and studies use it.`);
        void queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() });
      },
    }),
  );
  const data = changes.data;
  const nothing = data && data.added + data.changed + data.deleted === 0;
  return (
    <div
      role="group"
      aria-label="Save installed tools"
      data-testid="save-tools-confirm"
      className={`w-full ${warnBoxClass}`}
    >
      {changes.isPending ? (
        <p className="flex items-center gap-2">
          <Spinner /> Looking at what this session&apos;s container changed…
        </p>
      ) : null}
      {changes.error ? <ErrorMessage>{describeError(changes.error).message}</ErrorMessage> : null}
      {nothing ? (
        <p data-testid="save-tools-nothing">
          Nothing was installed in this session: its container changed no file outside /workspace and /tmp, so there is
          nothing to save.
        </p>
      ) : null}
      {data && !nothing ? (
        <>
          <p className="font-semibold">
            Save what this session installed as the project&apos;s next environment version?
          </p>
          <p className="mt-1" data-testid="save-tools-changes">
            Outside /workspace and /tmp its container {describeChanges(data)}.
          </p>
          <p className="mt-1">
            The new version becomes active: every future study and session of this project starts from it. The
            project&apos;s files are not part of it.
          </p>
        </>
      ) : null}
      <div className="mt-2 flex flex-wrap gap-2">
        {data && !nothing ? (
          <button
            type="button"
            className={buttonClass}
            disabled={save.isPending}
            onClick={() => save.mutate({ sessionId })}
          >
            {save.isPending ? "Saving installed tools…" : "Save as a new version"}
          </button>
        ) : null}
        <button type="button" className={smallButtonClass} onClick={onCancel} disabled={save.isPending}>
          {nothing ? "Close" : "Cancel"}
        </button>
      </div>
      {save.error ? <ErrorMessage className="mt-2 text-xs">{describeError(save.error).message}</ErrorMessage> : null}
    </div>
  );
}

/** "Save installed tools…": opens the confirmation with the container's changes; says when it was saved. */
export function SaveInstalledTools({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className={smallButtonClass}
        disabled={open}
        onClick={() => (setSaved(null), setOpen(true))}
        title="Shows what this session installed (not the project files), then commits it as the project's next environment version"
      >
        Save installed tools…
      </button>
      {saved ? <span className="text-xs text-ok">{saved}</span> : null}
      {open ? (
        <ConfirmSave
          sessionId={sessionId}
          onCancel={() => setOpen(false)}
          onSaved={(text) => (setSaved(text), setOpen(false))}
        />
      ) : null}
    </>
  );
}
