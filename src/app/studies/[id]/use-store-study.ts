"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { StudyView } from "../../../shared/study-schemas";
import { useTRPC } from "../../_lib/trpc";

/** Stores a study that a mutation (stop, retry, more repeats) answered with as the page's data. */
export function useStoreStudy(studyId: string): (next: StudyView) => void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    (next: StudyView) => queryClient.setQueryData(trpc.studies.get.queryKey({ studyId }), next),
    [queryClient, trpc, studyId],
  );
}
