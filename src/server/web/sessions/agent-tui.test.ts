import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { agentInstallFor, agentTuiEnv, agentTuiLines, prepareAgentHome } from "./agent-tui";
import { sessionModelOf } from "./session-agent-choice";
import { SESSION_TOKEN_FILE } from "./session-token";
import type { TrialOrigin } from "./session-deps";

/**
 * What a Claude Code or Gemini CLI session's container is told (the real TUIs run in
 * test/agent-sessions.test.ts): no key in its environment, the token from its file, resume by id, and a
 * home that skips every first-run question. And which model a session's agent gets.
 */
const TUI = { model: "scripted:session-chat", reasoningEffort: "high", hostedTools: false, resumeFile: "/r/resume" };

describe("agentTuiEnv and agentTuiLines", () => {
  it("keep every key variable out of the container's environment", () => {
    for (const kind of ["claude-code", "gemini-cli"] as const) {
      const env = agentTuiEnv(kind, { model: "m", home: "/tmp" });
      expect(Object.keys(env).filter((name) => /KEY|TOKEN/.test(name))).toEqual([]);
      expect(env.HOME).toBe("/tmp");
    }
    expect(agentTuiEnv("claude-code", { model: "m", home: "/root" })).toMatchObject({
      CLAUDE_CONFIG_DIR: "/run/invariant/agent-home",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:8787",
      IS_SANDBOX: "1",
    });
    expect(agentTuiEnv("gemini-cli", { model: "m", home: "/root" }).GEMINI_CLI_HOME).toBe("/run/invariant/agent-home");
  });

  it("Claude Code: the key through apiKeyHelper from the token file, an image's keys unset, --resume <id>", () => {
    const script = agentTuiLines("claude-code", TUI).join("\n");
    expect(script).toContain("unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN");
    expect(script).toContain(`"apiKeyHelper":"cat ${SESSION_TOKEN_FILE}"`);
    expect(script).toContain("'--dangerously-skip-permissions'");
    expect(script).toContain("'--model' 'session-chat'");
    expect(script).toContain("'--effort' 'high'");
    expect(script).toContain(`if [ -s /r/resume ]; then exec '/opt/invariant/agents/claude-code/claude'`);
    expect(script).toContain(`--resume "$(cat /r/resume)"; fi`);
    // an effort Claude Code does not take is left out
    expect(agentTuiLines("claude-code", { ...TUI, reasoningEffort: "minimal" }).join("\n")).not.toContain("--effort");
  });

  it("Gemini CLI: GEMINI_API_KEY from the token the script read, --yolo, --resume <id>", () => {
    const script = agentTuiLines("gemini-cli", TUI).join("\n");
    expect(script).toContain('GEMINI_API_KEY="$GW_TOKEN"; export GEMINI_API_KEY');
    expect(script).toContain("'-m' 'session-chat' '--yolo'");
    expect(script).toContain(`--resume "$(cat /r/resume)"; fi`);
  });

  it("a missing staged CLI is refused with how to get it", () => {
    expect(() => agentInstallFor("claude-code", {})).toThrow(
      /^Claude Code is not installed with the dashboard\. .*npm/,
    );
    expect(agentInstallFor("codex", {})).toBeNull();
    expect(agentInstallFor("gemini-cli", { "gemini-cli": { version: "0.61.0", hostDir: "/x" } })?.hostDir).toBe("/x");
  });
});

describe("prepareAgentHome", () => {
  it("Claude Code: onboarding done and /workspace trusted, whatever else the CLI wrote kept", () => {
    const home = tempDir("claude-prepare");
    const file = path.join(home, ".claude.json");
    fs.writeFileSync(
      file,
      JSON.stringify({ theme: "light", numStartups: 3, projects: { "/workspace": { allowedTools: ["x"] }, "/o": {} } }),
    );
    prepareAgentHome("claude-code", home, "m");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      theme: "light",
      numStartups: 3,
      hasCompletedOnboarding: true,
      projects: { "/workspace": { allowedTools: ["x"], hasTrustDialogAccepted: true }, "/o": {} },
    });
    // a file the agent broke is started afresh
    fs.writeFileSync(file, "{not json");
    prepareAgentHome("claude-code", home, "m");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ hasCompletedOnboarding: true, theme: "dark" });
  });

  it("Gemini CLI: the harness's settings (API-key auth, no folder trust)", () => {
    const home = tempDir("gemini-prepare");
    prepareAgentHome("gemini-cli", home, "m");
    expect(JSON.parse(fs.readFileSync(path.join(home, ".gemini", "settings.json"), "utf8"))).toMatchObject({
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    });
  });
});

describe("sessionModelOf", () => {
  const project = {
    defaultConfiguration: { harness: "codex", model: "gpt-5", reasoningEffort: "medium", instructions: "" },
  } as const;
  const origin = (harness: TrialOrigin["harness"]): TrialOrigin => ({
    trialId: "t1",
    projectId: "p",
    workspaceId: "w",
    committedImage: "i",
    threadId: "22f32c3e-3488-47c8-ba18-fbad81434d0f",
    codexHomePath: null,
    model: "claude-opus-4",
    reasoningEffort: "medium",
    ...(harness ? { harness } : {}),
  });
  const choose = (kind: "codex" | "claude-code" | "shell", more: Partial<Parameters<typeof sessionModelOf>[0]> = {}) =>
    sessionModelOf({ kind, model: "", origin: null, resumeThread: true, project, ...more });

  it("takes the model asked for, else the trial's of the same agent, else the project's default for that agent", () => {
    expect(choose("codex")).toBe("gpt-5");
    expect(choose("claude-code", { model: "claude-sonnet-4-5" })).toBe("claude-sonnet-4-5");
    expect(choose("claude-code", { origin: origin("claude-code") })).toBe("claude-opus-4");
    expect(choose("shell")).toBeNull();
    expect(() => choose("claude-code")).toThrow(/^Choose a model for Claude Code \(for example claude-sonnet-4-5;/);
  });

  it("refuses to resume a trial's conversation in another agent; a fresh one is fine", () => {
    expect(() => choose("codex", { origin: origin("claude-code") })).toThrow(
      "Trial t1 ran Claude Code, so only a Claude Code session can resume its conversation. Start a Codex session in a fresh conversation instead.",
    );
    expect(choose("codex", { origin: origin("claude-code"), resumeThread: false })).toBe("gpt-5");
    // a trial recorded before harness kinds: Codex
    expect(() => choose("claude-code", { origin: origin(undefined), model: "m" })).toThrow(/ran Codex/);
  });
});
