"use client";
import { useState } from "react";
import type { StudyView } from "../../../shared/study-schemas";
import { dangerButtonClass, ErrorMessage, focusRing, secondaryButtonClass } from "../../_components/ui";
import { useHealth } from "../../_components/system-health";

/** While a study is stopping and Redis is down: the Stop is recorded and is carried out when the queue is back. */
export function StopPendingNote({ study }: { study: StudyView }) {
  const health = useHealth();
  if (study.state !== "stopping" || health.data?.redis.reachable !== false) return null;
  return (
    <p role="status" data-testid="stop-pending" className="max-w-sm text-right text-sm text-muted">
      Stop recorded. The queue (Redis) is down: running trials stop and queued ones are cancelled as soon as it is back;
      nothing more to do.
    </p>
  );
}

/** "Stop study…", then a confirmation saying what stops and what is kept. */
export function StopStudy({
  study,
  stopping,
  onStop,
  error,
}: {
  study: StudyView;
  stopping: boolean;
  onStop: () => void;
  error: string | null;
}) {
  const [confirming, setConfirming] = useState(false);
  if (stopping) {
    return (
      <button type="button" className={`${dangerButtonClass} ${focusRing}`} disabled>
        Stopping…
      </button>
    );
  }
  if (!confirming) {
    return (
      <>
        <button type="button" className={`${dangerButtonClass} ${focusRing}`} onClick={() => setConfirming(true)}>
          Stop study…
        </button>
        {error ? <ErrorMessage>{error}</ErrorMessage> : null}
      </>
    );
  }
  const running = study.counts.running;
  const queued = study.counts.queued;
  return (
    <div
      role="group"
      aria-label="Confirm stop"
      className="max-w-sm rounded-md border border-danger-strong/40 p-3 text-sm"
    >
      <p>
        {study.state === "preflight"
          ? "Stop the preflight? No trial has started; the study ends as stopped."
          : `Stop ${running} running trial${running === 1 ? "" : "s"} and cancel ${queued} queued? Finished trials keep their results; stopped ones can be retried later.`}
      </p>
      <div className="mt-3 flex gap-2">
        <button
          type="button"
          className={`${dangerButtonClass} ${focusRing}`}
          disabled={stopping}
          onClick={() => {
            onStop();
            setConfirming(false);
          }}
        >
          {stopping ? "Stopping…" : "Stop"}
        </button>
        <button
          type="button"
          className={`${secondaryButtonClass} ${focusRing}`}
          disabled={stopping}
          onClick={() => setConfirming(false)}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
