"use client";
import { useCallback, useEffect, useRef } from "react";

/**
 * A stable function that calls `fn` at most once per `waitMs`: the first call runs at once, calls
 * during the wait collapse into one trailing call at its end.
 */
export function useThrottledCallback(fn: () => void, waitMs: number): () => void {
  const fnRef = useRef(fn);
  const lastRun = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    fnRef.current = fn;
  }, [fn]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(() => {
    if (timer.current) return;
    const wait = lastRun.current + waitMs - Date.now();
    const run = () => {
      timer.current = null;
      lastRun.current = Date.now();
      fnRef.current();
    };
    if (wait <= 0) run();
    else timer.current = setTimeout(run, wait);
  }, [waitMs]);
}
