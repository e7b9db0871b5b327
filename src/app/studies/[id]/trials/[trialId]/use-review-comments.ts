"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import type { ReviewSummaryView } from "../../../../../shared/review-schemas";
import { useRole } from "../../../../_components/use-role";
import { useTRPC } from "../../../../_lib/trpc";

/** Lines of the trial's (modified) side a comment is on; both ends included. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/** Where the review should show a comment: its file selected and its first line in view (nonce: again on a second click). */
export interface CommentReveal {
  path: string;
  line: number;
  nonce: number;
}

/**
 * The trial's review comments as the review shows them: the list (oldest first), adding and removing (admins
 * only; viewers read), the name of the follow-up each sent one went to, and which comment to bring into view.
 */
export function useReviewComments(summary: ReviewSummaryView, onReveal: () => void) {
  const { trialId } = summary;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { isAdmin } = useRole();
  const query = useQuery(trpc.review.comments.queryOptions({ trialId }));
  const refresh = useCallback(
    () => queryClient.invalidateQueries({ queryKey: trpc.review.comments.queryKey({ trialId }) }),
    [queryClient, trpc, trialId],
  );
  const add = useMutation(trpc.review.addComment.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.review.removeComment.mutationOptions({ onSuccess: refresh }));
  const [reveal, setReveal] = useState<CommentReveal | null>(null);
  const followUpNames = useMemo(
    () => new Map(summary.followUps.map((followUp) => [followUp.id, followUp.name])),
    [summary.followUps],
  );
  const comments = useMemo(() => query.data?.comments ?? [], [query.data]);
  return {
    trialId,
    query,
    comments,
    unsent: comments.filter((comment) => comment.sentInTrial === null).length,
    canWrite: isAdmin,
    add,
    remove,
    refresh,
    sentName: (trialIdSent: string) => followUpNames.get(trialIdSent) ?? "its follow-up",
    reveal,
    revealComment: (path: string, line: number) => {
      onReveal();
      setReveal({ path, line, nonce: Date.now() });
    },
  };
}

export type ReviewComments = ReturnType<typeof useReviewComments>;
export type ReviewCommentItem = ReviewComments["comments"][number];

/** "line 4" or "lines 4–7". */
export function linesText(range: { startLine: number | null; endLine: number | null }): string {
  if (range.startLine === null) return "";
  const end = range.endLine ?? range.startLine;
  return end === range.startLine ? `line ${range.startLine}` : `lines ${range.startLine}–${end}`;
}
