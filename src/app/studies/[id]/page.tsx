"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_lib/trpc";
import { StudyDetail } from "./study-detail";
import { useStudyLive } from "./use-study-live";

export default function StudyPage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId: id }));
  const tails = useStudyLive(id, study.data?.trials.length ?? 0);
  return (
    <QueryState
      query={study}
      loading="Loading study…"
      missing="No such study."
      errorExtra={
        <Link href="/studies" className="text-accent underline">
          All studies
        </Link>
      }
    >
      {(data) => <StudyDetail study={data} tails={tails} />}
    </QueryState>
  );
}
