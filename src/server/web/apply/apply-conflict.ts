import type { FileState } from "../../core/diffs/workspace-diff";
import type { BytePath } from "../../../lib/files/byte-path";

/** Why a plan step cannot be applied to the project as it is now (apply-preflight.ts finds them). */
export type ConflictReason =
  | "unsafe-path"
  | "excluded-path"
  | "duplicate-path"
  | "root-not-directory"
  | "symlink-in-path"
  | "not-a-directory"
  | "exists"
  | "missing"
  | "changed"
  | "mode-changed"
  | "type-changed"
  | "symlink-escapes"
  | "workspace-changed"
  | "plan-changed";

/** What is at a project path now, without following links. */
export type CurrentState = FileState | { type: "directory" } | { type: "other" } | null;

export interface Conflict {
  path: BytePath;
  reason: ConflictReason;
  message: string;
  /** The path's state when the conflict was found (undefined when it was not read). */
  current?: CurrentState;
}
