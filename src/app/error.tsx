"use client";
import Link from "next/link";
import { useEffect } from "react";
import { buttonClass, focusRing, secondaryButtonClass } from "./_components/ui";
import { messageOf } from "../shared/error-message";

/** A page failed while rendering: say so, offer to try again (re-fetches and re-renders the page) or go home. */
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const message = messageOf(error);
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div role="alert" className="rounded-xl border border-danger-strong/60 bg-danger-strong/10 p-6">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="mt-2 text-sm text-danger-ink">{message || "This page could not be shown."}</p>
      {digest ? <p className="mt-1 font-mono text-xs text-muted">Reference: {digest}</p> : null}
      <div className="mt-4 flex gap-3">
        <button type="button" className={`${buttonClass} ${focusRing}`} onClick={() => retry()}>
          Try again
        </button>
        <Link href="/projects" className={`${secondaryButtonClass} ${focusRing}`}>
          Back to projects
        </Link>
      </div>
    </div>
  );
}
