/**
 * The plain line any runner (or a shell script) can print: `N passed, N failed[, N skipped]`, in
 * any order and case, separated by commas, semicolons or `|`, optionally after a label ending in
 * ":" (`Results: 20 passed, 3 failed`) and before a parenthesised remark or ` in 1.2s`. The whole
 * line must be those items, so log lines that merely mention "3 passed" do not count. The last
 * such line wins. No rows.
 */
import { parseCount } from "./output-text";
import type { Counts, FormatResult } from "./verdict";

const LABEL = /^[A-Za-z][\w .-]{0,40}:\s*/;
const ITEM = /^(\d{1,9})\s+(passed|failed|skipped|total)$/i;

export function parseSummaryItems(line: string): Counts | null {
  let text = line.trim();
  if (text === "" || text.length > 200) return null;
  text = text.replace(LABEL, "");
  text = text
    .replace(/\s+\([^()]*\)$/, "")
    .replace(/\s+in\s+\d+(?:\.\d+)?\s*m?s$/i, "")
    .replace(/[.!]$/, "");
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  const seen = new Set<string>();
  for (const part of text.split(/[,;|]/)) {
    const item = ITEM.exec(part.trim());
    if (!item) return null;
    const label = item[2]!.toLowerCase();
    if (seen.has(label)) return null;
    seen.add(label);
    if (label !== "total") counts[label as keyof Counts] = parseCount(item[1]!) ?? 0;
  }
  return seen.has("passed") || seen.has("failed") ? counts : null;
}

export function parseSummaryLine(options: { lines: readonly string[] }): FormatResult | null {
  for (let i = options.lines.length - 1; i >= 0; i--) {
    const line = options.lines[i]!;
    if (!/\d/.test(line)) continue;
    const counts = parseSummaryItems(line);
    if (counts) return { source: "summary-line", counts, tests: [] };
  }
  return null;
}
