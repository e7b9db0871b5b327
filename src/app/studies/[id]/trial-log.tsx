"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { LOG_TAIL_CHARS, type LogTails, type TailSnapshot } from "./log-tails";
import { focusRing } from "../../_components/ui";

interface SavedTail {
  key: string;
  text: string;
  truncated: boolean;
  /** Live chunks up to here may already be in `text`. */
  seqAtStart: number;
  seqAtLoad: number;
}

/** The saved tail of a trial's log, fetched once per attempt; `null` until it arrives. */
function useSavedTail(trialId: string, attempt: number, tails: LogTails) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = `${trialId}:${attempt}`;
  const [saved, setSaved] = useState<SavedTail | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    const seqAtStart = tails.currentSeq();
    queryClient
      .fetchQuery({ ...trpc.studies.trialLog.queryOptions({ trialId, tailBytes: LOG_TAIL_CHARS }), staleTime: 0 })
      .then((result) => {
        if (!cancelled)
          setSaved({ key, text: result.text, truncated: result.truncated, seqAtStart, seqAtLoad: tails.currentSeq() });
      })
      .catch((cause: unknown) => {
        if (!cancelled) setError(describeError(cause).message);
      });
    return () => {
      cancelled = true;
    };
  }, [key, trialId, tails, queryClient, trpc]);
  return { saved: saved?.key === key ? saved : null, error };
}

/** The saved tail followed by the live chunks that came after it. */
function joinLog(saved: SavedTail, live: TailSnapshot, attempt: number): string {
  let text = saved.text;
  const recent = saved.text.slice(-16 * 1024);
  const chunks = live.attempt === attempt ? live.chunks.filter((chunk) => chunk.seq > saved.seqAtStart) : [];
  for (const chunk of chunks) {
    // chunks that arrived while the saved tail was read may be in it already
    if (chunk.seq <= saved.seqAtLoad && recent.includes(chunk.text)) continue;
    text += chunk.text;
  }
  return text;
}

/**
 * A trial's log: the saved tail first, then live chunks as they arrive. Follows new text unless the
 * reader scrolled up; the whole log is a download.
 */
export function TrialLog({ trialId, attempt, tails }: { trialId: string; attempt: number; tails: LogTails }) {
  const { saved: current, error } = useSavedTail(trialId, attempt, tails);
  const preRef = useRef<HTMLPreElement>(null);
  const follow = useRef(true);

  const live = useSyncExternalStore(
    (listener) => tails.subscribe(trialId, listener),
    () => tails.snapshot(trialId),
    () => tails.snapshot(""),
  );

  const text = current ? joinLog(current, live, attempt) : "";
  const cut = text.length > LOG_TAIL_CHARS;
  const shown = cut ? text.slice(-LOG_TAIL_CHARS) : text;

  useLayoutEffect(() => {
    const pre = preRef.current;
    if (pre && follow.current) pre.scrollTop = pre.scrollHeight;
  }, [shown]);

  return (
    <div>
      <div className="mb-1 flex items-center justify-between">
        <h3 className="text-xs uppercase tracking-wide text-muted">
          Log{current && (current.truncated || cut) ? " (last 64 KiB)" : ""}
        </h3>
        <a href={`/api/trials/${trialId}/log`} download className={`text-xs text-accent underline ${focusRing}`}>
          Download full log
        </a>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-danger">
          Could not load the log: {error}
        </p>
      ) : null}
      <pre
        ref={preRef}
        aria-label="Trial log"
        data-testid="trial-log"
        tabIndex={0}
        onScroll={(event) => {
          const pre = event.currentTarget;
          follow.current = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 24;
        }}
        className={`max-h-96 overflow-auto whitespace-pre-wrap break-all rounded-md border border-line bg-canvas p-3 font-mono text-xs text-muted ${focusRing}`}
      >
        {current ? shown || "No output yet." : "Loading the log…"}
      </pre>
    </div>
  );
}
