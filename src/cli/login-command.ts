import { storeApiKey, storedKeyPaths } from "../server/core/credentials/stored-api-key";
import { isAppError } from "../server/core/errors/app-error";
import { PROVIDER_INFO } from "../shared/harness-kinds";
import { formatModelAccess, providerAccessOf } from "./model-access-output";
import type { CliConfig } from "./config";

/** Reads a line from a terminal without echoing it (the key never shows on screen or in scrollback). */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let text = "";
    const done = (value: string | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (value === null) reject(new Error("cancelled"));
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return done(text);
        if (char === "\u0003" || char === "\u0004") return done(null); // Ctrl-C, Ctrl-D
        if (char === "\u007f" || char === "\b") text = text.slice(0, -1);
        else text += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `invariant-web login [--provider openai|anthropic|google]`: stores that provider's API key (default
 * OpenAI) in the data dir (mode 0600) for the model gateways, typed without echo or piped on stdin
 * (`printenv ANTHROPIC_API_KEY | invariant-web login --provider anthropic`), never from argv (which every
 * user of the host can read). A refused key writes nothing. A running dashboard uses it from the next model
 * request; the key is never printed (its last four characters at most).
 */
export async function runLoginCommand(config: CliConfig): Promise<number> {
  const provider = config.provider ?? "openai";
  const { label } = PROVIDER_INFO[provider];
  if (config.positionals.length > 0) {
    // not echoed: it may be the key itself, already in this host's process list and shell history
    process.stderr.write(
      "invariant-web login: the key is read from stdin or typed at the prompt, never from the command line (every user of the host can read it there). Nothing was stored.\n",
    );
    return 2;
  }
  let key: string;
  try {
    key = process.stdin.isTTY ? await readHidden(`${label} API key (not shown): `) : await readPiped();
  } catch {
    process.stderr.write("invariant-web login: cancelled; nothing stored.\n");
    return 1;
  }
  try {
    storeApiKey({ dataDir: config.dataDir, apiKey: key, provider });
  } catch (error) {
    if (isAppError(error)) {
      process.stderr.write(`invariant-web login: ${error.message} Nothing was stored.\n`);
      return 2;
    }
    throw error;
  }
  process.stderr.write(
    `Stored the ${label} API key in ${storedKeyPaths(config.dataDir, provider).file} (mode 600). Model access now:\n` +
      formatModelAccess(providerAccessOf(config)),
  );
  return 0;
}
