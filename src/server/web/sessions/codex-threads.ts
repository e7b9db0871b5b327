import fs from "node:fs";
import path from "node:path";

const ROLLOUT = /rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/**
 * The Codex thread a session worked on: the conversation file (`sessions/YYYY/MM/DD/rollout-…-<thread
 * id>.jsonl` in the Codex home) written last since `since`. Null when Codex saved none.
 */
export function latestThreadSince(options: { codexHome: string; since: Date }): string | null {
  let best: { id: string; mtime: number } | null = null;
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < 4) walk(full, depth + 1);
      const match = entry.isFile() ? ROLLOUT.exec(entry.name) : null;
      if (!match?.[1]) continue;
      const mtime = fs.statSync(full).mtimeMs;
      if (mtime >= options.since.getTime() - 1000 && (!best || mtime > best.mtime)) best = { id: match[1], mtime };
    }
  };
  walk(path.join(options.codexHome, "sessions"), 0);
  return (best as { id: string } | null)?.id ?? null;
}
