import type { MockScript, MockStep } from "./mock-script";
import { writeFileCommand } from "./responses-request";

/** What every API makes of a script step, whatever shape it answers in. */

export type ShellStep = Extract<MockStep, { kind: "run" | "write-file" }>;
export type ReplyStep = Extract<MockStep, { kind: "reply" }>;
export type CutStep = Extract<MockStep, { kind: "cut" }>;
export type FailStep = Extract<MockStep, { kind: "fail" }>;
export type AnsweringStep = Exclude<MockStep, FailStep>;

/** The step at `index`; past the last one, a reply saying the script has run out (as the Responses path does). */
export function stepAt(options: { script: MockScript; index: number; scriptName: string }): MockStep {
  return (
    options.script.steps[options.index] ?? {
      kind: "reply",
      text: `(The mock script "${options.scriptName}" has no more steps.)`,
      repeat: 1,
      deltaChars: 4096,
    }
  );
}

/** The shell command a shell step runs: its own, or one that writes the file byte for byte. */
export function shellCommandOf(step: ShellStep): string {
  return step.kind === "run" ? step.command : writeFileCommand({ path: step.path, content: step.content });
}

/** A short description of the command, which Claude Code's and Gemini CLI's shell tools take alongside it. */
export function shellDescriptionOf(step: ShellStep): string {
  return step.kind === "run" ? `Run: ${step.command.slice(0, 60)}` : `Write ${step.path}`;
}

export function thinkMsOf(script: MockScript, step: AnsweringStep): number {
  return step.kind === "cut" ? 0 : (step.thinkMs ?? script.thinkMs);
}

export function usageOf(script: MockScript, step: AnsweringStep): MockScript["usage"] {
  return step.kind === "cut" ? script.usage : (step.usage ?? script.usage);
}

export function reasoningOf(step: AnsweringStep): string | undefined {
  return step.kind === "cut" ? undefined : step.reasoning;
}

/** A reply's text in pieces of `deltaChars`. */
export function* replyPieces(step: ReplyStep): Generator<string> {
  const text = step.text.repeat(step.repeat);
  for (let from = 0; from < text.length; from += step.deltaChars) yield text.slice(from, from + step.deltaChars);
}
