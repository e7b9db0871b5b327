/** What decides whether the new study form's Create study can be pressed now. */
export interface CreateStudyReadiness {
  /** The caller's role; null while it is still being asked. */
  role: "admin" | "viewer" | null;
  /** The study is being created (the snapshot is being frozen, the test files captured). */
  creating: boolean;
  /** The chosen project; empty: none yet (then submitting says "Choose a project."). */
  projectId: string;
  /** The project's study defaults: still loading, loaded, or the error that stopped them. */
  defaults: "loading" | "loaded" | { error: string };
  /** The chosen project's folder problem ("The folder … is gone. …"), if any. */
  folderProblem: string | null;
  /** Why the project cannot run a study (from the defaults): no ready environment, its folder. */
  blocker: string | null;
  /** The version of the project's environment being prepared right now, if one is. */
  buildingVersion: number | null;
}

/**
 * Why Create study cannot be pressed now, as the sentence shown next to it; null when it can be (a field that
 * needs attention is reported when it is pressed). A disabled button never stands there without its reason.
 */
export function createStudyBlockedReason(state: CreateStudyReadiness): string | null {
  if (state.creating) return "Creating the study: freezing a snapshot of the project and capturing its test files…";
  if (state.role === null) return "Checking your access…";
  if (state.role === "viewer") return "Only the admin of this invariant-web can start studies.";
  if (state.projectId === "") return null;
  if (state.folderProblem) return state.folderProblem;
  if (state.defaults === "loading") return "Loading the project's defaults (environment, model, limits)…";
  if (typeof state.defaults === "object") return `Could not read the project's defaults: ${state.defaults.error}`;
  if (state.blocker && state.buildingVersion !== null)
    return `Waiting for environment v${state.buildingVersion} to be ready: it is being prepared, and Create study turns on by itself when it is.`;
  return state.blocker;
}
