import { z } from "zod";
import { configurationLabelSchema } from "./configuration-label";
import { HARNESS_INFO } from "./harness-kinds";
import { agentConfigurationSchema } from "./project-schemas";
import { HARNESS_KINDS } from "./vocabulary";

/** A study's configuration as the form, the API and a study file give it (study-inputs.ts holds the rest of a study). */

/**
 * Objects of a study refuse fields they do not have (a typo such as "concurency" is not dropped
 * silently), with the same sentence as the CLI's study file (src/cli/study-file.ts).
 */
export function refusingUnknown(fields: readonly string[]) {
  return {
    error: (issue: { code?: string; keys?: string[] }) =>
      issue.code === "unrecognized_keys"
        ? `Unknown field${(issue.keys?.length ?? 0) > 1 ? "s" : ""} ${(issue.keys ?? []).map((key) => JSON.stringify(key.slice(0, 100))).join(", ")}. The fields here are: ${fields.join(", ")}.`
        : undefined,
  };
}

const overrideSchema = z
  .string()
  .regex(/^[\w.-]+=.+$/s, 'An override looks like key=value, for example model_verbosity="low".');

/** The harness, model and command of a row can be checked whenever they are strings, whatever else is wrong. */
function rowCheckable(payload: { value: unknown }): boolean {
  const value = payload.value as { harness?: unknown; model?: unknown; command?: unknown } | null;
  return (
    typeof value === "object" &&
    value !== null &&
    (HARNESS_KINDS as readonly unknown[]).includes(value.harness) &&
    typeof (value.model ?? "") === "string" &&
    typeof (value.command ?? "") === "string"
  );
}

const configurationShape = {
  /** The name it is shown by; empty: derived from the model and effort, or the command (configuration-label.ts). */
  label: configurationLabelSchema,
  ...agentConfigurationSchema.shape,
  overrides: z.array(overrideSchema).max(50, "At most 50 overrides.").default([]),
  command: z.string().trim().max(10_000, "The command is at most 10,000 characters.").default(""),
  repeats: z
    .number({ error: "Repeats must be a number." })
    .int("Repeats is a whole number.")
    .min(1, "At least 1 repeat.")
    .max(20, "At most 20 repeats."),
};

export const configurationInputSchema = z
  .strictObject(configurationShape, refusingUnknown(Object.keys(configurationShape)))
  // checked even while other fields of the row are invalid, so every message shows at once
  .refine((value) => !HARNESS_INFO[value.harness].modelRequired || value.model !== "", {
    path: ["model"],
    message: "Name the model this configuration uses.",
    when: rowCheckable,
  })
  .refine(
    (value) => value.harness !== "claude-code" || HARNESS_INFO[value.harness].efforts.includes(value.reasoningEffort),
    {
      path: ["reasoningEffort"],
      message: `Claude Code's effort is one of ${HARNESS_INFO["claude-code"].efforts.join(", ")}.`,
      when: rowCheckable,
    },
  )
  .refine((value) => value.harness !== "command" || value.command !== "", {
    path: ["command"],
    message: "Give the agent command line (the task is on stdin and in $INVARIANT_TASK).",
    when: rowCheckable,
  });
export type ConfigurationInput = z.infer<typeof configurationInputSchema>;
