import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { AppError } from "../errors/app-error";

/**
 * The OpenAI API key stored in the data dir (`credentials/openai-api-key`, mode 0600 in a 0700
 * folder), set from the Setup page or `invariant-web login`. Only the model gateway (worker) reads
 * the key itself; everything else asks whether one is stored and when it was set. It is never shown
 * again, logged, written to the database or sent to a browser.
 */
export function storedKeyPaths(dataDir: string) {
  const dir = path.join(dataDir, "credentials");
  return { dir, file: path.join(dir, "openai-api-key") };
}

const MAX_KEY_LENGTH = 1000;

/** The key as typed, trimmed; refused (without echoing it) when it cannot be an API key. */
export function checkApiKey(raw: string): string {
  const key = raw.trim();
  if (key === "")
    throw new AppError({ code: "BAD_REQUEST", field: "apiKey", message: "Paste an API key (it starts with sk-)." });
  if (key.length > MAX_KEY_LENGTH)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "apiKey",
      message: `That is longer than any API key (${key.length} characters); paste the key alone.`,
    });
  // a header value: no whitespace or control characters inside (they would also break the request)
  if (/[\s\p{Cc}]/u.test(key))
    throw new AppError({
      code: "BAD_REQUEST",
      field: "apiKey",
      message: "An API key has no spaces, line breaks or control characters inside; paste the key alone.",
    });
  return key;
}

/** Writes the key atomically: a 0600 file in a 0700 folder, renamed into place (never a moment world-readable). */
export function storeApiKey(options: { dataDir: string; apiKey: string }): { storedAt: string } {
  const key = checkApiKey(options.apiKey);
  const { dir, file } = storedKeyPaths(options.dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const temporary = path.join(dir, `.openai-api-key-${randomBytes(6).toString("hex")}`);
  const fd = fs.openSync(temporary, "wx", 0o600);
  try {
    fs.writeSync(fd, `${key}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
  return { storedAt: fs.statSync(file).mtime.toISOString() };
}

/** Removes the stored key; whether there was one. */
export function removeStoredApiKey(dataDir: string): boolean {
  try {
    fs.unlinkSync(storedKeyPaths(dataDir).file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** When the stored key was set, or null when none is stored (the key itself is not read). */
export function storedKeyInfo(dataDir: string): { storedAt: string } | null {
  try {
    const stat = fs.statSync(storedKeyPaths(dataDir).file);
    return stat.isFile() ? { storedAt: stat.mtime.toISOString() } : null;
  } catch {
    return null;
  }
}

/**
 * The stored key, for the model gateway only; null when none is stored. A key file that others may
 * read (group or world bits) is refused: it would mean the key leaked, or is not ours.
 */
export function readStoredApiKey(dataDir: string): string | null {
  const { file } = storedKeyPaths(dataDir);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if ((stat.mode & 0o077) !== 0)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}); the model gateway does not use it. Store the key again (invariant-web login), which writes it with mode 600.`,
      });
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const key = text.trim();
  return key === "" ? null : key;
}
