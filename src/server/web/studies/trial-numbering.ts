import type { TrialRow } from "./study-views";

type NumberedRow = Pick<TrialRow, "id" | "configurationId" | "queuedAt" | "parentTrialId">;

const byCreation = (a: NumberedRow, b: NumberedRow) =>
  a.queuedAt.getTime() - b.queuedAt.getTime() || a.id.localeCompare(b.id);

/**
 * Numbers each configuration's first attempts 1..repeats in creation order. A follow-up (a trial with a
 * parent) is no new repeat: it has its parent's repeat number and its place among the parent's follow-ups
 * (`followUpPath`, see domain-names.ts), so "Trial 3.2.1" is the first follow-up of "Trial 3.2".
 */
export function trialNumbering(
  trials: readonly NumberedRow[],
): Map<string, { repeat: number; followUpPath: number[] }> {
  const sorted = [...trials].sort(byCreation);
  const next = new Map<string, number>();
  const numbers = new Map<string, { repeat: number; followUpPath: number[] }>();
  const children = new Map<string, NumberedRow[]>();
  const known = new Set(trials.map((trial) => trial.id));
  for (const trial of sorted) {
    // a follow-up whose parent is not among these rows (deleted) is numbered as a first attempt
    if (trial.parentTrialId && known.has(trial.parentTrialId)) {
      children.set(trial.parentTrialId, [...(children.get(trial.parentTrialId) ?? []), trial]);
      continue;
    }
    const n = (next.get(trial.configurationId) ?? 0) + 1;
    next.set(trial.configurationId, n);
    numbers.set(trial.id, { repeat: n, followUpPath: [] });
  }
  const visit = (parentId: string) => {
    const parent = numbers.get(parentId);
    if (!parent) return;
    (children.get(parentId) ?? []).forEach((child, index) => {
      numbers.set(child.id, { repeat: parent.repeat, followUpPath: [...parent.followUpPath, index + 1] });
      visit(child.id);
    });
  };
  for (const id of [...numbers.keys()]) visit(id);
  return numbers;
}

/** The repeat number of each trial (a follow-up has its parent's): see `trialNumbering`. */
export function repeatNumbers(trials: readonly NumberedRow[]): Map<string, number> {
  return new Map([...trialNumbering(trials)].map(([id, place]) => [id, place.repeat]));
}
