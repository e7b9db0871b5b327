/**
 * Turns a test command's raw output into plain lines: the last OUTPUT_TAIL_CHARS only, ANSI escape
 * sequences removed, carriage-return overwrites resolved. Every step is one linear scan.
 */
import { OUTPUT_TAIL_CHARS } from "./verdict";

/** Past this a line is cut: no summary is that long, and it bounds the work any line pattern does. */
export const MAX_LINE_CHARS = 8192;

const ESC = 0x1b;
const CSI_8BIT = 0x9b;
const BEL = 0x07;

/** Removes CSI (`ESC [ … final`), OSC (`ESC ] … BEL | ESC \`), other two-byte escapes and the 8-bit CSI. */
export function stripAnsi(text: string): string {
  if (!text.includes("\u001b") && !text.includes("\u009b")) return text;
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code !== ESC && code !== CSI_8BIT) {
      i++;
      continue;
    }
    if (i > start) parts.push(text.slice(start, i));
    // j: the byte after ESC; for the 8-bit CSI, the byte after it stands in for the "[" that follows ESC
    let j = i + 1;
    const next = code === CSI_8BIT ? 0x5b : j < n ? text.charCodeAt(j) : -1;
    if (next === 0x5b) {
      // CSI: parameter bytes 0x30–0x3f, intermediate bytes 0x20–0x2f, one final byte 0x40–0x7e
      if (code === ESC) j++;
      while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x3f) j++;
      if (j < n && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j++;
    } else if (next === 0x5d || next === 0x50 || next === 0x5f || next === 0x5e) {
      // OSC / DCS / APC / PM: up to BEL or ST (ESC \), or the end of the line if unterminated
      j++;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === BEL) {
          j++;
          break;
        }
        if (c === ESC && text.charCodeAt(j + 1) === 0x5c) {
          j += 2;
          break;
        }
        if (c === 0x0a) break;
        j++;
      }
    } else if (next >= 0x20 && next <= 0x7e) {
      j++; // a two-byte escape such as ESC 7, ESC =, or ESC ( B (the designator byte is then plain text — drop it too)
      if ((next === 0x28 || next === 0x29) && j < n) j++;
    }
    i = j;
    start = j;
  }
  if (start < n) parts.push(text.slice(start));
  return parts.join("");
}

/** What a terminal would show for a line with carriage returns: the text after the last one. */
function resolveCarriageReturns(line: string): string {
  const at = line.lastIndexOf("\r");
  if (at < 0) return line;
  if (at === line.length - 1) {
    const before = line.lastIndexOf("\r", at - 1);
    return line.slice(before + 1, at);
  }
  return line.slice(at + 1);
}

/** The last OUTPUT_TAIL_CHARS of the output, starting at a line boundary when cut. */
export function outputTail(output: string): string {
  if (output.length <= OUTPUT_TAIL_CHARS) return output;
  const cut = output.length - OUTPUT_TAIL_CHARS;
  const newline = output.indexOf("\n", cut);
  return newline < 0 ? output.slice(cut) : output.slice(newline + 1);
}

/** Plain lines of the output's tail. */
export function outputLines(options: { output: string }): string[] {
  const text = stripAnsi(outputTail(options.output));
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = resolveCarriageReturns(lines[i] ?? "");
    if (line.length > MAX_LINE_CHARS) line = line.slice(0, MAX_LINE_CHARS);
    lines[i] = line;
  }
  return lines;
}

/** Leading spaces (tabs count as one). */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return i;
}

/** A non-negative integer, or null when `text` is not just digits. */
export function parseCount(text: string): number | null {
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}
