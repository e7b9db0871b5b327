"use client";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** Tables with more rows than this render only the rows near the viewport. */
export const WINDOW_ABOVE_ROWS = 60;
const OVERSCAN_PX = 800;
const DEFAULT_ROW_PX = 41;

/** What a windowed table renders: `indices` in order, and the height of the hidden rows before each and after the last. */
export interface RowWindow {
  indices: number[];
  gapBefore: (position: number) => number;
  gapAfter: number;
}

/** Rows [start, end) plus the pinned ones (open trials keep their row and detail), in order. */
export function windowIndices(options: { count: number; start: number; end: number; pinned: readonly number[] }) {
  const { count } = options;
  const start = Math.max(0, Math.min(count, options.start));
  const end = Math.max(start, Math.min(count, options.end));
  const set = new Set<number>();
  for (let index = start; index < end; index++) set.add(index);
  for (const index of options.pinned) if (index >= 0 && index < count) set.add(index);
  return [...set].sort((a, b) => a - b);
}

/**
 * Windowing for a long table in a page that scrolls as a whole: only the rows within the viewport (plus
 * 800 px either side, and the `pinned` ones) are rendered; the hidden ones are stood in for by spacer
 * rows of their height, so the scrollbar and the page's length stay true. The row height is measured
 * from the rendered rows; `extraPx(index)` is the height of what follows a row besides itself (an open
 * detail). Off (every row rendered) for `count` up to WINDOW_ABOVE_ROWS.
 */
export function useRowWindow(options: {
  count: number;
  pinned: readonly number[];
  extraPx: (index: number) => number;
}): { window: RowWindow | null; tableRef: (node: HTMLTableElement | null) => void } {
  const { count, pinned, extraPx } = options;
  const enabled = count > WINDOW_ABOVE_ROWS;
  const [table, setTable] = useState<HTMLTableElement | null>(null);
  const [range, setRange] = useState({ start: 0, end: Math.min(count, 40), rowPx: DEFAULT_ROW_PX });
  const rowPx = useRef(DEFAULT_ROW_PX);
  const latest = useRef({ count, pinned, extraPx });
  useEffect(() => {
    latest.current = { count, pinned, extraPx };
  });

  const measure = useCallback(() => {
    if (!table) return;
    const rows = table.tBodies[0]?.querySelectorAll<HTMLTableRowElement>('tr[data-testid="trial-row"]');
    if (rows && rows.length > 0) {
      // the median row; kept unless it changes by a tenth (a new estimate moves every row below it)
      const heights = [...rows].map((row) => row.offsetHeight).sort((a, b) => a - b);
      const median = heights[Math.floor(heights.length / 2)] ?? 0;
      if (median > 0 && Math.abs(median - rowPx.current) > rowPx.current / 10) rowPx.current = median;
    }
    const { count: total, pinned: open, extraPx: extra } = latest.current;
    const head = table.tHead?.offsetHeight ?? 0;
    const top = table.getBoundingClientRect().top + head;
    // the body's y of a row index, counting the open details above it
    const yOf = (index: number) =>
      index * rowPx.current + open.filter((pin) => pin < index).reduce((sum, pin) => sum + extra(pin), 0);
    const indexAt = (y: number) => {
      let index = Math.floor(y / rowPx.current);
      while (index > 0 && yOf(index) > y) index -= 1;
      return Math.max(0, Math.min(total, index));
    };
    const start = indexAt(-top - OVERSCAN_PX);
    const end = Math.min(total, indexAt(-top + globalThis.innerHeight + OVERSCAN_PX) + 1);
    const px = Math.round(rowPx.current * 2) / 2;
    setRange((current) =>
      current.start === start && current.end === end && current.rowPx === px ? current : { start, end, rowPx: px },
    );
  }, [table]);

  useEffect(() => {
    if (!enabled || !table) return;
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        measure();
      });
    };
    globalThis.addEventListener("scroll", onScroll, { passive: true });
    globalThis.addEventListener("resize", onScroll);
    return () => {
      globalThis.removeEventListener("scroll", onScroll);
      globalThis.removeEventListener("resize", onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [enabled, table, measure]);
  // after every render: the rows rendered may have another height (a narrower window wraps them)
  useLayoutEffect(() => {
    if (enabled) measure();
  });

  if (!enabled) return { window: null, tableRef: setTable };
  const indices = windowIndices({ count, start: range.start, end: range.end, pinned });
  const hidden = (from: number, to: number) => Math.max(0, to - from) * range.rowPx;
  return {
    tableRef: setTable,
    window: {
      indices,
      gapBefore: (position) => hidden(position === 0 ? 0 : (indices[position - 1] ?? 0) + 1, indices[position] ?? 0),
      gapAfter: hidden((indices[indices.length - 1] ?? -1) + 1, count),
    },
  };
}
