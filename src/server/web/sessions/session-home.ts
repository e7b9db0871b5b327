import fs from "node:fs";
import path from "node:path";
import { isAgentSession } from "../../../shared/session-schemas";
import { prepareAgentHome } from "./agent-tui";
import { sessionHomeOf } from "./codex-home";
import type { SessionDeps } from "./session-deps";
import type { SessionRecord } from "./sessions.queries";

/** What prepareAgentHome writes, relative to the home. */
const PREPARED = [".claude.json", ".gemini", path.join(".gemini", "settings.json")];

/**
 * Writes what the session's agent reads from its home before its TUI starts (agent-tui.ts), as the
 * home's owner: a dashboard running as root writes these files for a container that runs as another
 * user, whose CLI must read and rewrite them.
 */
export function prepareSessionHome(deps: Pick<SessionDeps, "dataDir">, record: SessionRecord): void {
  if (!isAgentSession(record.kind) || !record.model) return;
  const home = sessionHomeOf(deps.dataDir, record);
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  prepareAgentHome(record.kind, home, record.model);
  if (process.getuid?.() !== 0) return;
  const owner = fs.statSync(home);
  for (const name of PREPARED) {
    const file = path.join(home, name);
    if (fs.existsSync(file)) fs.lchownSync(file, owner.uid, owner.gid);
  }
}
