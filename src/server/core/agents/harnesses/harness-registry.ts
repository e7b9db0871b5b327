import { z } from "zod";
import type { HarnessKind } from "../../../../shared/vocabulary";
import { claudeCodeHarness, claudeCodeHarnessSchema } from "./claude-code";
import { codexHarness, codexHarnessSchema } from "./codex";
import { commandHarness, commandHarnessSchema } from "./command";
import { geminiCliHarness, geminiCliHarnessSchema } from "./gemini-cli";
import type { HarnessModule } from "./harness-module";

/** A configuration's harness as jobs and manifests carry it (the Codex and command shapes are unchanged since v1). */
export const harnessSchema = z.discriminatedUnion("kind", [
  codexHarnessSchema,
  claudeCodeHarnessSchema,
  geminiCliHarnessSchema,
  commandHarnessSchema,
]);
export type Harness = z.infer<typeof harnessSchema>;

const MODULES: { [K in HarnessKind]: HarnessModule<Extract<Harness, { kind: K }>> } = {
  codex: codexHarness,
  "claude-code": claudeCodeHarness,
  "gemini-cli": geminiCliHarness,
  command: commandHarness,
};

/** The module that runs a harness of this kind. */
export function harnessModule<H extends Harness>(harness: H): HarnessModule<H> {
  // the mapped type above pairs each kind with its module; TypeScript cannot follow that through `H`
  return MODULES[harness.kind] as unknown as HarnessModule<H>;
}
