import { UsageError } from "../shared/automation-errors";

/** A command line the CLI cannot carry out (shared with the MCP server's tool errors). */
export { UsageError };

/** Digits only: Number("") and Number(" ") are 0 and Number("0x10") is 16, none of which was typed as a number. */
export function wholeNumber(text: string, problem: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${problem}, got "${text.slice(0, 80)}".`);
  return Number(text);
}
