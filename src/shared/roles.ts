export type Role = "admin" | "viewer";

export interface Identity {
  role: Role;
  /** Viewer link id for viewers; "admin" for the launcher's token. */
  subject: string;
  /** The browser session the request came with (a cookie), or null for a bearer token. */
  sessionId?: string | null;
}
