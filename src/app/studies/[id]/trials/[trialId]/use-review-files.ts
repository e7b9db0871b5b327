"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import {
  REVIEW_PAGE_DEFAULT,
  type ReviewAgainst,
  type ReviewFileItem,
  type ReviewSubject,
} from "../../../../../shared/review-schemas";

/** Whose changes, and for a follow-up trial what they are shown against (its parent, or the snapshot by default). */
export type ReviewScope = ReviewSubject & { against?: ReviewAgainst };
import { useTRPC } from "../../../../_lib/trpc";

/**
 * The changed files of a trial (or a private-copy session), a page of 500 at a time. The first page also carries the diff of the file
 * the page opens first (`opened`: its path key, or `true` for the first file), the first diff's data.
 */
export function useReviewFiles(subject: ReviewScope, opened: string | true) {
  const trpc = useTRPC();
  const query = useInfiniteQuery(
    trpc.review.files.infiniteQueryOptions(
      { ...subject, limit: REVIEW_PAGE_DEFAULT, opened },
      { getNextPageParam: (page) => page.nextCursor ?? undefined, staleTime: 30_000 },
    ),
  );
  const items = useMemo<ReviewFileItem[]>(() => query.data?.pages.flatMap((page) => page.items) ?? [], [query.data]);
  const first = query.data?.pages[0];
  return {
    query,
    items,
    total: first?.total ?? 0,
    skipped: first?.skipped ?? [],
    leftOut: first?.leftOut ?? [],
    leftOutTotal: first?.leftOutTotal ?? 0,
    opened: first?.opened ?? null,
    truncated: query.data?.pages.some((page) => page.truncated) ?? false,
  };
}
