"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorMessage, smallButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

/**
 * Browses folders (server-side, admin only: the host user's home and the folder invariant-web was started in)
 * and picks one for a new project.
 */
export function FolderPicker({ start, onPick }: { start: string | null; onPick: (path: string) => void }) {
  const trpc = useTRPC();
  const [folder, setFolder] = useState<string | null>(start);
  const listing = useQuery({ ...trpc.projects.browseFolders.queryOptions({ path: folder }), retry: false });
  return (
    <div className="mt-2 rounded-md border border-line p-3" role="group" aria-label="Choose a folder">
      {listing.error ? (
        <div className="flex flex-wrap items-center gap-2">
          <ErrorMessage>{describeError(listing.error).message}</ErrorMessage>
          <button type="button" className={smallButtonClass} onClick={() => setFolder(null)}>
            Home folder
          </button>
        </div>
      ) : null}
      {listing.data ? (
        <>
          <div className="mb-2 flex flex-wrap items-center gap-2">
            <span className="break-all font-mono text-xs" data-testid="picker-path">
              {listing.data.path}
            </span>
            {listing.data.parent ? (
              <button type="button" className={smallButtonClass} onClick={() => setFolder(listing.data.parent)}>
                Up
              </button>
            ) : null}
            {listing.data.roots
              .filter((root) => root.path !== listing.data.path)
              .map((root) => (
                <button
                  key={root.path}
                  type="button"
                  className={smallButtonClass}
                  title={root.path}
                  onClick={() => setFolder(root.path)}
                >
                  {root.name}
                </button>
              ))}
            <button type="button" className={smallButtonClass} onClick={() => onPick(listing.data.path)}>
              Use this folder
            </button>
          </div>
          <ul className="grid max-h-60 gap-0.5 overflow-y-auto" aria-label="Folders">
            {listing.data.folders.map((entry) => (
              <li key={entry.path}>
                <button
                  type="button"
                  className="w-full truncate rounded px-2 py-1 text-left text-sm hover:bg-line"
                  onClick={() => setFolder(entry.path)}
                >
                  {entry.name}/
                </button>
              </li>
            ))}
            {listing.data.folders.length === 0 ? (
              <li className="text-sm text-muted">
                No folders inside {listing.data.path}. {listing.data.parent ? "Go up, " : ""}
                {listing.data.roots.length > 1 ? "start from another place above, " : ""}use this folder, or type a path
                in the field.
              </li>
            ) : null}
          </ul>
          {listing.data.truncated ? (
            <p className="mt-1 text-xs text-muted">Only the first 500 folders are listed.</p>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
