import { z } from "zod";
import { configurationName } from "./domain-names";
import { HARNESS_INFO } from "./harness-kinds";
import { harnessKindSchema } from "./vocabulary";

/**
 * A configuration's label: the one name every table, chart, comparison, report and the CLI show for it.
 * An explicit label (the study form's Label, a study file's `label`) wins; otherwise it is derived from
 * what tells configurations apart: the model and effort for Codex ("gpt-5 · high"), the agent, model and
 * effort for the other CLIs ("Claude Code · claude-sonnet-4-5 · high", "Gemini CLI · gemini-2.5-pro"), the
 * command's first words for a command line ("sed -i s/x/y/ src/a.js"). Labels that collide in one study get "#2", "#3".
 */

export const MAX_CONFIGURATION_LABEL_CHARS = 60;
/** How much of a command line a derived label keeps (then "…"). */
export const COMMAND_LABEL_CHARS = 40;

export const configurationLabelSchema = z
  .string()
  .trim()
  .max(MAX_CONFIGURATION_LABEL_CHARS, `A label is at most ${MAX_CONFIGURATION_LABEL_CHARS} characters.`)
  .refine(
    (value) => ![...value].some((char) => char.charCodeAt(0) < 32 || char.charCodeAt(0) === 127),
    "A label is one line of text, without control characters.",
  )
  .default("");

/** What a label is derived from; `customLabel` is the explicit one (empty or absent: none). */
export interface LabelSource {
  harness: string;
  model: string;
  reasoningEffort: string;
  command?: string | null;
  customLabel?: string | null;
}

/** The first words of a command line, at most `COMMAND_LABEL_CHARS` characters, cut at a space when one is near. */
export function commandWords(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  if (line.length <= COMMAND_LABEL_CHARS) return line;
  const head = line.slice(0, COMMAND_LABEL_CHARS - 1);
  const space = head.lastIndexOf(" ");
  const cut = space >= COMMAND_LABEL_CHARS / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

/**
 * A configuration's own label, before collisions with the study's other configurations are resolved.
 * `namedAgent`: Codex is named too ("Codex · gpt-5 · high"), as in a study beside other agents.
 */
export function configurationLabel(configuration: LabelSource, options: { namedAgent?: boolean } = {}): string {
  const explicit = configuration.customLabel?.trim();
  if (explicit) return explicit;
  if (configuration.harness === "command") return commandWords(configuration.command ?? "") || "command";
  const model = configuration.model.trim() || "no model";
  if (configuration.harness === "codex")
    return `${options.namedAgent ? "Codex · " : ""}${model} · ${configuration.reasoningEffort}`;
  const kind = harnessKindSchema.safeParse(configuration.harness);
  if (!kind.success) return `${configuration.harness} · ${model}`;
  const { label, efforts } = HARNESS_INFO[kind.data];
  return efforts.length > 0 ? `${label} · ${model} · ${configuration.reasoningEffort}` : `${label} · ${model}`;
}

/** Whether configurations run more than one agent CLI (a command line aside): then each label names its agent. */
export function mixesAgents(configurations: readonly { harness: string }[]): boolean {
  return new Set(configurations.map((c) => c.harness).filter((harness) => harness !== "command")).size > 1;
}

/**
 * The labels of one study's configurations, by number: each `configurationLabel` (naming Codex too in a
 * study of several agents), with "#2", "#3", … appended to the second and later of a colliding label
 * (in the configurations' order).
 */
export function configurationLabels(
  configurations: readonly (LabelSource & { choice: number })[],
): Map<number, string> {
  const taken = new Set<string>();
  const labels = new Map<number, string>();
  const namedAgent = mixesAgents(configurations);
  for (const configuration of configurations) {
    const own = configurationLabel(configuration, { namedAgent });
    let label = own;
    for (let n = 2; taken.has(label); n += 1) label = `${own} #${n}`;
    taken.add(label);
    labels.set(configuration.choice, label);
  }
  return labels;
}

/** The configurations with their study-wide `label` (see configurationLabels). */
export function withLabels<T extends LabelSource & { choice: number }>(
  configurations: readonly T[],
): (T & { label: string })[] {
  const labels = configurationLabels(configurations);
  return configurations.map((configuration) => ({
    ...configuration,
    label: labels.get(configuration.choice) ?? configurationLabel(configuration),
  }));
}

/** "Configuration 2 · gpt-5 · high": a configuration's number and label, where a sentence names it. */
export function numberedLabel(configuration: { choice: number; label: string }): string {
  return `${configurationName(configuration.choice)} · ${configuration.label}`;
}

/**
 * What a configuration runs, in full, for a tooltip or a detail line: "command ./agent.sh --fast",
 * "Codex gpt-5 · effort high", "Gemini CLI gemini-2.5-pro".
 */
export function configurationDescription(configuration: LabelSource): string {
  if (configuration.harness === "command") return `command ${configuration.command ?? ""}`.trim();
  const kind = harnessKindSchema.safeParse(configuration.harness);
  const { label, efforts } = kind.success ? HARNESS_INFO[kind.data] : { label: configuration.harness, efforts: [] };
  const model = `${label} ${configuration.model.trim() || "(no model)"}`;
  return efforts.length > 0 ? `${model} · effort ${configuration.reasoningEffort}` : model;
}
