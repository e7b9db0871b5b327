import { describeModelAccess } from "../server/core/credentials/model-access";
import { storeApiKey } from "../server/core/credentials/stored-api-key";
import { isAppError } from "../server/core/errors/app-error";
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
 * `invariant-web login`: stores an OpenAI API key in the data dir (mode 0600) for the model gateway,
 * typed without echo or piped on stdin (`printenv OPENAI_API_KEY | invariant-web login`). A running
 * dashboard uses it from the next model request; the key is never printed.
 */
export async function runLoginCommand(config: CliConfig): Promise<number> {
  let key: string;
  try {
    key = process.stdin.isTTY ? await readHidden("OpenAI API key (not shown): ") : await readPiped();
  } catch {
    process.stderr.write("invariant-web login: cancelled; nothing stored.\n");
    return 1;
  }
  try {
    storeApiKey({ dataDir: config.dataDir, apiKey: key });
  } catch (error) {
    if (isAppError(error)) {
      process.stderr.write(`invariant-web login: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const access = describeModelAccess({
    dataDir: config.dataDir,
    environmentKey: config.modelGateway.openaiApiKey !== null,
    codexHome: config.modelGateway.codexHome,
  });
  process.stderr.write(
    `Stored the API key in ${config.dataDir}/credentials (mode 600). Model access now: ${access.summary}\n`,
  );
  return 0;
}
