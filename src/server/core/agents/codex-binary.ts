import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const PLATFORM_PACKAGES: Record<string, { pkg: string; triple: string }> = {
  "linux-x64": { pkg: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-arm64": { pkg: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
};

export interface CodexBinary {
  path: string;
  version: string;
  /** Linux architecture of the binary in Docker's terms (amd64 / arm64). */
  dockerArch: string;
}

/**
 * Locates the static Linux Codex binary shipped by the pinned `@openai/codex` dependency. It is copied
 * into environment images, so it must be a Linux build; on other hosts the image build installs it.
 */
export function locateCodexBinary(options: { arch?: string } = {}): CodexBinary | null {
  const arch = options.arch ?? process.arch;
  const entry = PLATFORM_PACKAGES[`linux-${arch}`];
  if (!entry) return null;
  const require = createRequire(import.meta.url);
  try {
    const manifest = require.resolve(`${entry.pkg}/package.json`);
    const binary = path.join(path.dirname(manifest), "vendor", entry.triple, "bin", "codex");
    if (!fs.existsSync(binary)) return null;
    const version = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string }).version.replace(
      /-linux-.*$/,
      "",
    );
    return { path: binary, version, dockerArch: arch === "x64" ? "amd64" : "arm64" };
  } catch {
    return null;
  }
}

export const CODEX_HINT =
  "Reinstall invariant-web's dependencies (npm install) so the pinned @openai/codex package and its Linux binary are present.";
