export type Role = "admin" | "viewer";

export interface Identity {
  role: Role;
  /** Viewer link id for viewers; "admin" for the launcher's token. */
  subject: string;
}
