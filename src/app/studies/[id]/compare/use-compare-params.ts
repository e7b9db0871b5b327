"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";

export const MAX_COMPARED = 8;

/** The left side of a file comparison: a trial, or the study's snapshot. */
export type LeftSide = { trialId: string } | { snapshot: true };

export interface CompareParams {
  trialIds: string[];
  /** The file whose diff is open (its path key). */
  file: string | null;
  left: LeftSide | null;
  right: string | null;
}

/**
 * The compare page's state, all in its URL (`?trials=a,b&file=…&left=a|snapshot&right=b`) so a comparison
 * can be shared and reloaded.
 */
export function useCompareParams(): [CompareParams, (change: Partial<CompareParams>) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const current = useMemo<CompareParams>(() => {
    const trialIds = [...new Set((params.get("trials") ?? "").split(",").filter(Boolean))].slice(0, MAX_COMPARED);
    const left = params.get("left");
    return {
      trialIds,
      file: params.get("file"),
      left: left === "snapshot" ? { snapshot: true } : left ? { trialId: left } : null,
      right: params.get("right"),
    };
  }, [params]);
  const update = useCallback(
    (change: Partial<CompareParams>) => {
      const next = { ...current, ...change };
      const search = new URLSearchParams();
      if (next.trialIds.length > 0) search.set("trials", next.trialIds.join(","));
      if (next.file) search.set("file", next.file);
      if (next.left) search.set("left", "snapshot" in next.left ? "snapshot" : next.left.trialId);
      if (next.right) search.set("right", next.right);
      router.replace(`${pathname}?${search.toString().replace(/%2C/g, ",")}`, { scroll: false });
    },
    [current, router, pathname],
  );
  return [current, update];
}
