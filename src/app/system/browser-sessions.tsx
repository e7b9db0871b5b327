"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../server/web/trpc/app-router";
import { DataTable, type Column } from "../_components/data-table";
import { ErrorMessage, Panel, smallButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { formatRelative } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

type BrowserSession = inferRouterOutputs<AppRouter>["system"]["sessions"][number];

/** A short name for a user agent: the browser and the system, e.g. "Chrome on Linux". */
export function browserName(userAgent: string): string {
  if (!userAgent) return "Unknown client";
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? /HeadlessChrome/.test(userAgent)
          ? "Headless Chrome"
          : "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : /^curl\//.test(userAgent)
            ? "curl"
            : (userAgent.split(/[\s/]/)[0] ?? "Unknown client");
  const system = /Windows/.test(userAgent)
    ? "Windows"
    : /Mac OS X/.test(userAgent)
      ? "macOS"
      : /Android/.test(userAgent)
        ? "Android"
        : /Linux/.test(userAgent)
          ? "Linux"
          : null;
  return system ? `${browser} on ${system}` : browser;
}

function who(session: BrowserSession): string {
  return session.role === "admin" ? "Admin" : `Viewer: ${session.viewerLabel ?? "link"}`;
}

/** Signed-in browsers (the admin's and viewers'), each revocable: its cookie stops working at once. */
export function BrowserSessions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.system.sessions.queryOptions());
  const revoke = useMutation(
    trpc.system.revokeSession.mutationOptions({
      onSuccess: async (_result, input) => {
        // signing this browser out: the next page load shows the access-token page
        if (sessions.data?.some((session) => session.id === input.id && session.current)) window.location.reload();
        else await queryClient.invalidateQueries({ queryKey: trpc.system.sessions.queryKey() });
      },
    }),
  );
  const columns: Column<BrowserSession>[] = [
    { key: "who", header: "Who", cell: who },
    {
      key: "browser",
      header: "Browser",
      cell: (session) => (
        <span title={session.userAgent}>
          {browserName(session.userAgent)}
          {session.current ? <span className="ml-2 text-xs text-muted">(this browser)</span> : null}
        </span>
      ),
    },
    { key: "signed-in", header: "Signed in", cell: (session) => formatRelative(session.createdAt) },
    { key: "last-seen", header: "Last seen", cell: (session) => formatRelative(session.lastSeenAt) },
    { key: "expires", header: "Expires", cell: (session) => new Date(session.expiresAt).toLocaleDateString() },
    {
      key: "revoke",
      header: null,
      cell: (session) => (
        <button
          type="button"
          className={smallButtonClass}
          disabled={revoke.isPending}
          onClick={() => revoke.mutate({ id: session.id })}
          aria-label={
            session.current ? "Sign out this browser" : `Sign out ${who(session)}, ${browserName(session.userAgent)}`
          }
        >
          {session.current ? "Sign out" : "Revoke"}
        </button>
      ),
    },
  ];
  return (
    <Panel title="Signed-in browsers">
      <p className="mb-3 text-sm text-muted">
        A browser that opened the printed URL or a viewer link stays signed in with a session cookie (not the token)
        until it expires. Revoke one you do not recognise; it must open a link again.
      </p>
      {sessions.data && sessions.data.length > 0 ? (
        <DataTable
          label="Signed-in browsers"
          density="flush"
          columns={columns}
          rows={sessions.data}
          rowKey={(session) => session.id}
        />
      ) : (
        <p className="text-sm text-muted">No browser is signed in (command-line clients use the token directly).</p>
      )}
      {revoke.error ? <ErrorMessage className="mt-2">{describeError(revoke.error).message}</ErrorMessage> : null}
    </Panel>
  );
}
