import type { z } from "zod";
import type { harnessSchema } from "../../core/agents/harness";
import { effortFor } from "../../../shared/harness-kinds";
import type { HarnessKind, ReasoningEffort } from "../../../shared/vocabulary";

/** What a configuration row holds that a job's harness is made of. */
export interface HarnessSource {
  harness: HarnessKind;
  model: string;
  reasoningEffort: ReasoningEffort;
  instructions: string;
  overrides: readonly string[];
  command: string | null;
}

/**
 * The harness a trial's (or a continued session's) job runs, from its configuration: each kind gets
 * exactly the fields its CLI takes (agents/harness.ts checks them once more when the job is queued).
 */
export function jobHarness(configuration: HarnessSource): z.input<typeof harnessSchema> {
  const { model, instructions } = configuration;
  switch (configuration.harness) {
    case "command":
      return { kind: "command", command: configuration.command ?? "", model };
    case "claude-code":
      return {
        kind: "claude-code",
        model,
        reasoningEffort: effortFor("claude-code", configuration.reasoningEffort),
        instructions,
      };
    case "gemini-cli":
      return { kind: "gemini-cli", model, instructions };
    case "codex":
      return {
        kind: "codex",
        model,
        reasoningEffort: configuration.reasoningEffort,
        instructions,
        overrides: [...configuration.overrides],
      };
  }
}
