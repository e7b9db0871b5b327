"use client";
import { useSearchParams } from "next/navigation";
import { useCallback, useState } from "react";
import type { ReviewFileItem } from "../../../../../shared/review-schemas";

/**
 * The selected file (its path key), kept in the URL (`?file=`) so a review can be linked to and reloaded;
 * the first file when none is chosen or the chosen one is filtered out.
 */
export function useSelectedFile(visible: readonly ReviewFileItem[]): [string | null, (pathKey: string | null) => void] {
  const params = useSearchParams();
  const [chosen, setChosen] = useState<string | null>(() => params.get("file"));
  const selected =
    chosen !== null && visible.some((item) => item.pathKey === chosen) ? chosen : (visible[0]?.pathKey ?? null);
  const select = useCallback((pathKey: string | null) => {
    setChosen(pathKey);
    const url = new URL(window.location.href);
    if (pathKey) url.searchParams.set("file", pathKey);
    else url.searchParams.delete("file");
    window.history.replaceState(window.history.state, "", url);
  }, []);
  return [selected, select];
}
