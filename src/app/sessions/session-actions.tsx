"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { SessionView } from "../../shared/session-schemas";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { dangerButtonClass, ErrorMessage, smallButtonClass } from "../_components/ui";
import { useRole } from "../_components/use-role";
import { SaveInstalledTools } from "./save-tools";
import { CONTAINER_SESSION_STATES, LIVE_SESSION_STATES, RESUMABLE_SESSION_STATES } from "../../shared/session-schemas";

/** Attach, resume, save installed tools and finish, as the session's state allows (admins only but attach). */
export function SessionActions({ session, compact = false }: { session: SessionView; compact?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const [confirming, setConfirming] = useState(false);
  const refetch = () => void queryClient.invalidateQueries({ queryKey: trpc.sessions.pathKey() });
  const resume = useMutation(trpc.sessions.resume.mutationOptions({ onSuccess: refetch }));
  const finish = useMutation(
    trpc.sessions.finish.mutationOptions({ onSuccess: () => (setConfirming(false), refetch()) }),
  );
  const error = resume.error ?? finish.error;
  const open = LIVE_SESSION_STATES.includes(session.state);
  const hasContainer = CONTAINER_SESSION_STATES.includes(session.state) && !session.fetchingImage;
  return (
    <div className={`flex flex-wrap items-center gap-2 ${compact ? "" : "mt-1"}`}>
      {compact && session.state !== "finished" ? (
        <Link href={`/sessions/${session.id}`} className={smallButtonClass}>
          {open ? "Attach" : "Open"}
        </Link>
      ) : null}
      {isAdmin && RESUMABLE_SESSION_STATES.includes(session.state) ? (
        <button
          type="button"
          className={smallButtonClass}
          disabled={resume.isPending}
          onClick={() => resume.mutate({ sessionId: session.id })}
        >
          {resume.isPending ? "Resuming…" : "Resume"}
        </button>
      ) : null}
      {isAdmin && hasContainer && !compact ? <SaveInstalledTools sessionId={session.id} /> : null}
      {isAdmin && session.state !== "finished" ? (
        confirming ? (
          <>
            <button
              type="button"
              className={dangerButtonClass}
              disabled={finish.isPending}
              onClick={() => finish.mutate({ sessionId: session.id })}
            >
              {finish.isPending ? "Finishing…" : "Finish: remove its container"}
            </button>
            <button type="button" className={smallButtonClass} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" className={smallButtonClass} onClick={() => setConfirming(true)}>
            Finish…
          </button>
        )
      ) : null}
      {error ? <ErrorMessage className="text-xs">{describeError(error).message}</ErrorMessage> : null}
    </div>
  );
}
