import { z } from "zod";

/** INVARIANT_BRANCH_AUTHOR: the author and committer of Apply as a branch's commits, "Name <email>". */
export const branchAuthorEnv = z
  .string()
  .regex(
    /^[^<>\n]+ <[^<>\s]+@[^<>\s]+>$/,
    'INVARIANT_BRANCH_AUTHOR must be "Name <email>", such as "Invariant <ci@example.com>"',
  )
  .optional();

/** "Name <email>" as a commit identity; null: the default (invariant-web <invariant-web@localhost>). */
export function authorOf(text: string | undefined): { name: string; email: string } | null {
  const match = text ? /^(.+) <(.+)>$/.exec(text) : null;
  return match?.[1] && match[2] ? { name: match[1].trim(), email: match[2] } : null;
}
