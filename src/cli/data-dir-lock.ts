import fs from "node:fs";
import { dataDirPaths } from "../server/core/storage/data-dir";
import { isProcessAlive } from "../lib/process-alive";

/** One launcher per data dir: two would both write the database and fight over the private Redis. */
export interface DataDirLock {
  update(info: { url: string }): void;
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // the data dir holds the access token, the database and Redis's files: private to this user
  if ((fs.statSync(dataDir).mode & 0o077) !== 0) fs.chmodSync(dataDir, 0o700);
  const file = dataDirPaths(dataDir).launcherFile;
  try {
    const held = JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number; url?: string };
    if (typeof held.pid === "number" && held.pid !== process.pid && isProcessAlive(held.pid)) {
      throw new Error(
        `invariant-web is already running for ${dataDir} (pid ${held.pid}${held.url ? `, ${held.url}` : ""}). Stop it first, or use another --data-dir.`,
      );
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && !(error instanceof SyntaxError)) throw error;
  }
  const write = (info: { url?: string }) =>
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid, ...info }), { mode: 0o600 });
  write({});
  return {
    update: (info) => write(info),
    release() {
      try {
        const held = JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number };
        if (held.pid === process.pid) fs.rmSync(file, { force: true });
      } catch {
        // already gone
      }
    },
  };
}
