import { z } from "zod";

/** The lifecycle commands that run while the image is made, in the order the devcontainer spec runs them. */
export const LIFECYCLE_KEYS = ["onCreateCommand", "updateContentCommand", "postCreateCommand"] as const;

const MAX_COMMAND_CHARS = 10_000;
const argv = z.array(z.string().max(MAX_COMMAND_CHARS)).min(1).max(256);
const single = z.union([z.string().trim().min(1).max(MAX_COMMAND_CHARS), argv]);

/** A lifecycle command: a shell string, an argv array (no shell), or named commands of either form. */
export const lifecycleCommandSchema = z.union([
  single,
  z
    .record(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "command names are letters, digits and _ . : -"), single)
    .refine((record) => Object.keys(record).length <= 32, "at most 32 named commands"),
]);
export type LifecycleCommand = z.infer<typeof lifecycleCommandSchema>;

/** One word quoted for sh, so an argv array runs exactly as given (as the spec says: without a shell). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function scriptOf(command: string | string[]): string {
  return Array.isArray(command) ? command.map(shellQuote).join(" ") : command;
}

/**
 * The command as one sh script. Named commands (which VS Code starts in parallel) run one after another
 * here, each in its own subshell, so the log reads in order and the first failure stops the build.
 */
export function lifecycleScript(command: LifecycleCommand): string {
  if (typeof command === "string" || Array.isArray(command)) return scriptOf(command);
  return Object.entries(command)
    .map(([name, each]) => `echo ${shellQuote(`[${name}]`)}\n(\n${scriptOf(each)}\n) || exit $?`)
    .join("\n");
}
