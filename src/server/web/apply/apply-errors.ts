import type { Conflict } from "./apply-conflict";

/** The project or workspace changed between the preflight and the commit. */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(conflicts.map((conflict) => conflict.message).join(" "));
  }
}

/** Step 2 failed and every change was undone; `conflicts` when it failed because the project changed meanwhile. */
export class ApplyRolledBackError extends Error {
  constructor(
    message: string,
    readonly conflicts: Conflict[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Step 2 failed and some changes could not be undone; the staging directory keeps the backups. */
export class ApplyRollbackIncompleteError extends Error {
  constructor(
    message: string,
    readonly stagingDir: string,
  ) {
    super(message);
  }
}
