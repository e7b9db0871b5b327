"use client";
import Link from "next/link";
import { smallButtonClass } from "../../../_components/ui";

/** "Compare trials": the study's compare page, with its first trials (up to three) ticked. */
export function CompareTrialsLink({ studyId, trialIds }: { studyId: string; trialIds: readonly string[] }) {
  const preset = trialIds.slice(0, 3).join(",");
  return (
    <Link
      href={`/studies/${studyId}/compare${preset ? `?trials=${preset}` : ""}`}
      className={smallButtonClass}
      data-testid="compare-trials-link"
    >
      Compare trials
    </Link>
  );
}
