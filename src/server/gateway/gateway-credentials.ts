import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error";

/** The real credential the gateway puts on upstream requests. Never logged, never sent to a container. */
export interface GatewayCredential {
  apiKey: string;
  /** Where it came from, for messages (never the key itself). */
  source: "OPENAI_API_KEY" | "auth.json";
}

const authJsonSchema = z.looseObject({
  OPENAI_API_KEY: z.string().nullish(),
  tokens: z.unknown().optional(),
  auth_mode: z.string().nullish(),
});

export function signInHint(codexHome: string): string {
  return (
    "Give invariant-web an OpenAI API key: set OPENAI_API_KEY in the environment that starts it, or sign the host's Codex in " +
    `with an API key (\`printenv OPENAI_API_KEY | codex login --with-api-key\`, which writes ${path.join(codexHome, "auth.json")}). ` +
    "A ChatGPT sign-in cannot be used: its tokens belong to your account session and the gateway does not forward them."
  );
}

/**
 * Finds the API key: `OPENAI_API_KEY` passed by the caller (read from the environment in
 * src/cli/config.ts), else `OPENAI_API_KEY` in `<codexHome>/auth.json` (Codex's API-key sign-in).
 * Anything else — no file, a ChatGPT sign-in, a file we cannot read — is a PRECONDITION_FAILED
 * AppError that says how to sign in.
 */
export function resolveGatewayCredential(options: {
  openaiApiKey?: string | null;
  codexHome: string;
}): GatewayCredential {
  const fromEnv = options.openaiApiKey?.trim();
  if (fromEnv) return { apiKey: fromEnv, source: "OPENAI_API_KEY" };
  const file = path.join(options.codexHome, "auth.json");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `The model gateway has no credential: OPENAI_API_KEY is not set and ${missing ? `there is no ${file}` : `${file} cannot be read`}. ${signInHint(options.codexHome)}`,
    });
  }
  let parsed: z.infer<typeof authJsonSchema>;
  try {
    parsed = authJsonSchema.parse(JSON.parse(text));
  } catch {
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `The model gateway cannot read ${file} (not the JSON Codex writes). ${signInHint(options.codexHome)}`,
    });
  }
  const key = parsed.OPENAI_API_KEY?.trim();
  if (key) return { apiKey: key, source: "auth.json" };
  const chatgpt = parsed.tokens !== undefined && parsed.tokens !== null;
  throw new AppError({
    code: "PRECONDITION_FAILED",
    message: chatgpt
      ? `The host's Codex is signed in with ChatGPT (${file}), which the model gateway cannot use. ${signInHint(options.codexHome)}`
      : `${file} holds no API key. ${signInHint(options.codexHome)}`,
  });
}
