/**
 * Putting user text (titles, prompts, model names, error messages) into Markdown so that it reads as
 * the same text: it cannot open a table cell, start a heading or list, become a link or emphasis, or
 * reach the page as raw HTML.
 */

const LINE_BREAK = /\r\n|\r|\n/g;

/** Punctuation that Markdown (CommonMark + GFM, and GitHub's `$` math) would read as syntax inline. */
const INLINE_SYNTAX = /[\\`*_[\]|~$]/g;

/**
 * One line of plain text, safe anywhere inline, table cells included: HTML-significant `& < >` become
 * entities, Markdown punctuation is backslash-escaped (`|` too, so a cell cannot end early), and line
 * breaks become spaces.
 */
export function escapeInline(text: string): string {
  return text
    .replace(LINE_BREAK, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(INLINE_SYNTAX, (char) => `\\${char}`);
}

/** A table cell: `escapeInline`, or an em dash for nothing. */
export function escapeCell(text: string | null): string {
  if (text === null || text.trim() === "") return "—";
  return escapeInline(text);
}

/** Block markers a line may start with: heading, list, quote, setext underline or break, ordered list. */
const LINE_START_SYNTAX = /^([#=+-]|\d+[.)])/;

/**
 * Multi-line text as a block quote that keeps its lines: each line escaped like `escapeInline`, a
 * leading block marker escaped, leading spaces kept as no-break spaces (so they indent without making
 * a code block), and a hard break (`\` at the end) between lines of a paragraph.
 */
export function quoteBlock(text: string): string {
  const lines = text.replace(/\s+$/, "").split(LINE_BREAK);
  return lines
    .map((line, index) => {
      if (line.trim() === "") return ">";
      const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
      const body = escapeInline(line.slice(indent.length)).replace(LINE_START_SYNTAX, (marker) =>
        marker.replace(/^(\d*)(.)$/, "$1\\$2"),
      );
      const spaces = indent.replace(/\t/g, "    ").replace(/ /g, "&nbsp;");
      const next = lines[index + 1];
      const hardBreak = next !== undefined && next.trim() !== "" ? "\\" : "";
      return `> ${spaces}${body.replace(/[ \t]+$/, "")}${hardBreak}`;
    })
    .join("\n");
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/**
 * An inline code span holding the text literally (on one line), with a delimiter longer than any
 * backtick run inside. Not for table cells: GFM splits cells at `|` even inside code.
 */
export function codeSpan(text: string): string {
  const line = text.replace(LINE_BREAK, " ");
  if (line === "") return "—";
  const fence = "`".repeat(longestRun(line, "`") + 1);
  const pad =
    line.startsWith("`") || line.endsWith("`") || (line.startsWith(" ") && line.endsWith(" ") && line.trim() !== "")
      ? " "
      : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** A fenced code block holding the text literally, its fence longer than any backtick run inside. */
export function codeBlock(options: { text: string; language?: string }): string {
  const body = options.text.replace(/\r\n|\r/g, "\n").replace(/\n+$/, "");
  const fence = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  return `${fence}${options.language ?? ""}\n${body}\n${fence}`;
}
