// The tables of the Markdown report: rows, cells and the number formats they use.
import type { ReportConfiguration } from "../../../shared/study-report";
import { escapeCell } from "./markdown-text";

export const NONE = "—";

/** `12,345`; a fraction (a median of two) keeps one decimal. */
export function formatNumber(value: number): string {
  const [whole = "", fraction] = String(Math.round(value * 10) / 10).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

export const formatSeconds = (value: number | null): string => (value === null ? NONE : value.toFixed(1));

export const tableRow = (cells: string[]): string => `| ${cells.join(" | ")} |`;
export const tableHead = (cells: string[]): string[] => [tableRow(cells), tableRow(cells.map(() => "---"))];

/** A table's configuration column: its label (the Configurations section spells out what it runs). */
export function configurationCells(configuration: ReportConfiguration | undefined): string[] {
  return [configuration === undefined ? NONE : escapeCell(configuration.label)];
}

export function spreadCell(options: {
  spread: { min: number; max: number } | null;
  format: (value: number) => string;
}): string {
  return options.spread === null ? NONE : `${options.format(options.spread.min)}–${options.format(options.spread.max)}`;
}
