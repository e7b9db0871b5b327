import type { TestCaseResult } from "./verdict";

/**
 * Rows and summaries of one output, split into runs: a row after a summary starts a new run, so
 * when a runner (or a command running several runners) prints more than one summary, the last
 * summary wins and the rows that belong to it come with it. Rows printed after the last summary
 * (a recap of failures, a run that was cut off) are not counted.
 */
interface Segment<S> {
  rows: TestCaseResult[];
  summary: S | null;
}

export class RunSegments<S> {
  private readonly segments: Segment<S>[] = [{ rows: [], summary: null }];

  private get current(): Segment<S> {
    return this.segments[this.segments.length - 1]!;
  }

  addRow(row: TestCaseResult): void {
    if (this.current.summary !== null) this.segments.push({ rows: [], summary: null });
    this.current.rows.push(row);
  }

  /** The summary of the current run so far (to update a summary printed over several lines). */
  currentSummary(): S | null {
    return this.current.summary;
  }

  setSummary(summary: S): void {
    this.current.summary = summary;
  }

  /** The last run with a summary; without any summary, the rows alone (unless a summary is required). */
  result(options: { requireSummary: boolean }): { rows: TestCaseResult[]; summary: S | null } | null {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i]!;
      if (segment.summary !== null) return segment;
    }
    if (options.requireSummary) return null;
    const only = this.segments[0]!;
    return only.rows.length > 0 ? only : null;
  }
}
