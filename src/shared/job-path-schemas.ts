import { z } from "zod";

/**
 * Paths and ids inside worker jobs. A job comes from Redis, and whoever can write to that Redis can
 * forge one, so the worker parses every path a job names with these before it touches the disk:
 * host paths are absolute, normalised and free of `..` and NUL; file paths inside a workspace are
 * relative and never climb out of it; ids that become folder names are single, plain segments.
 */
export const jobHostPathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((value) => !value.includes("\0"), "A host path may not contain a NUL byte.")
  .refine((value) => value.startsWith("/"), "A host path must be absolute (start with /).")
  .refine(
    (value) => !value.split("/").some((segment) => segment === ".." || segment === "."),
    "A host path may not contain . or .. segments.",
  );

/** A file inside the workspace (a captured test file, the JUnit report): relative, no `..`. */
export const jobRelativePathSchema = z
  .string()
  .min(1)
  .max(1000)
  .refine((value) => !value.includes("\0"), "A path may not contain a NUL byte.")
  .refine((value) => !value.startsWith("/"), "Use a path relative to the workspace, not an absolute one.")
  .refine((value) => !value.includes("\\"), "Use / between folders, not \\.")
  .refine(
    (value) => !value.split("/").some((segment) => segment === ".." || segment === "." || segment === ""),
    "A path may not contain empty, . or .. segments.",
  );

/** An id that names a folder in the data dir (studies/<id>, trials/<id>): one plain segment. */
export const jobIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/, "An id is letters, digits, '.', '_' and '-', not starting with '.'.");

/** Is `child` (an absolute, normalised path) inside `parent`? */
export function isPathInside(child: string, parent: string): boolean {
  const base = parent.endsWith("/") ? parent : `${parent}/`;
  return child === parent || child.startsWith(base);
}
