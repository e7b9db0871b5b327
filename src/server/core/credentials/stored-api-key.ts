import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { ModelProvider } from "../../../shared/harness-kinds";
import { AppError } from "../errors/app-error";
import { checkApiKey } from "./api-key-format";

export { checkApiKey } from "./api-key-format";

/**
 * The API keys stored in the data dir, one file per model provider (`credentials/openai-api-key`,
 * `anthropic-api-key`, `google-api-key`; mode 0600 in a 0700 folder), set from the Setup page or
 * `invariant-web login --provider`. Only the model gateways read a key itself (and the Setup page its
 * last four characters); everything else asks whether one is stored and when it was set. A key is never
 * shown again, logged, written to the database or sent to a browser or a container.
 */
export function storedKeyPaths(dataDir: string, provider: ModelProvider = "openai") {
  const dir = path.join(dataDir, "credentials");
  return { dir, file: path.join(dir, `${provider}-api-key`) };
}

/**
 * Writes the key atomically: checked first (nothing is written for a refused key), then a 0600 file in a
 * 0700 folder, renamed into place (never a moment world-readable, never half a key).
 */
export function storeApiKey(options: { dataDir: string; apiKey: string; provider?: ModelProvider }): {
  storedAt: string;
} {
  const provider = options.provider ?? "openai";
  const key = checkApiKey(options.apiKey, provider);
  const { dir, file } = storedKeyPaths(options.dataDir, provider);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const temporary = path.join(dir, `.${provider}-api-key-${randomBytes(6).toString("hex")}`);
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

/** Removes the provider's stored key; whether there was one. */
export function removeStoredApiKey(dataDir: string, provider: ModelProvider = "openai"): boolean {
  try {
    fs.unlinkSync(storedKeyPaths(dataDir, provider).file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** When the provider's key was stored, or null when none is (the key itself is not read). */
export function storedKeyInfo(dataDir: string, provider: ModelProvider = "openai"): { storedAt: string } | null {
  try {
    const stat = fs.statSync(storedKeyPaths(dataDir, provider).file);
    return stat.isFile() ? { storedAt: stat.mtime.toISOString() } : null;
  } catch {
    return null;
  }
}

/**
 * The provider's stored key, for the model gateways only; null when none is stored. A key file that
 * others may read (group or world bits) is refused: it would mean the key leaked, or is not ours.
 */
export function readStoredApiKey(dataDir: string, provider: ModelProvider = "openai"): string | null {
  const { file } = storedKeyPaths(dataDir, provider);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if ((stat.mode & 0o077) !== 0)
      throw new AppError({
        code: "PRECONDITION_FAILED",
        message: `${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}); the model gateway does not use it. Store the key again (invariant-web login${provider === "openai" ? "" : ` --provider ${provider}`}), which writes it with mode 600.`,
      });
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const key = text.trim();
  return key === "" ? null : key;
}

/**
 * The last four characters of the stored key, the only part of it the Setup page and the CLI show (so an
 * admin can tell which key is stored); null when none is stored or it cannot be read.
 */
export function storedKeyEnding(dataDir: string, provider: ModelProvider = "openai"): string | null {
  try {
    const key = readStoredApiKey(dataDir, provider);
    return key && key.length >= 12 ? key.slice(-4) : null;
  } catch {
    return null;
  }
}
