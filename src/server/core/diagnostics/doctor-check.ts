import type { SetupCheckStatus } from "../../../shared/setup-schemas";

/** One line of `invariant-web doctor` (doctor.ts runs them; certificates-check.ts is one). */
export interface DoctorCheck {
  id: "node" | "docker" | "redis" | "disk" | "codex" | "claude-code" | "gemini-cli" | "certificates";
  title: string;
  status: SetupCheckStatus;
  required: boolean;
  detail: string;
  /** What to do when the status is not ok. */
  fix: string | null;
}
