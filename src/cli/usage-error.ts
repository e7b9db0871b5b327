/** A command line the CLI cannot carry out: its message says what was wrong and how to write it. */
export class UsageError extends Error {}

/** Digits only: Number("") and Number(" ") are 0 and Number("0x10") is 16, none of which was typed as a number. */
export function wholeNumber(text: string, problem: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${problem}, got "${text.slice(0, 80)}".`);
  return Number(text);
}
