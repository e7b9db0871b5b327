"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Suspense } from "react";
import { QueryState } from "../../../_components/query-state";
import { focusRing } from "../../../_components/ui";
import { useTRPC } from "../../../_lib/trpc";
import { wideClass } from "../_review/wide";
import { CompareView } from "./compare-view";

/** /studies/<id>/compare?trials=a,b,…: several trials of a study side by side. */
export default function ComparePage() {
  return (
    <Suspense fallback={<p className="text-muted">Loading…</p>}>
      <CompareStudy />
    </Suspense>
  );
}

function CompareStudy() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId: id }));
  return (
    <div className={wideClass}>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm text-muted">
        <Link href={`/studies/${id}`} className={`text-accent hover:underline ${focusRing}`}>
          ← Study
        </Link>
      </nav>
      <QueryState
        query={study}
        loading="Loading the study…"
        errorPrefix="Could not load the study"
        missing="No such study."
      >
        {(data) => <CompareView study={data} />}
      </QueryState>
    </div>
  );
}
