/**
 * The theme colours (src/app/globals.css `@theme`) as plain values, for the few places that cannot use
 * a Tailwind class: SVG attributes and inline styles of the charts. Keep the two in step.
 */
export const themeColors = {
  canvas: "#0b0d12",
  panel: "#12151c",
  line: "#262b36",
  ink: "#e6e8ee",
  muted: "#9aa3b2",
  accent: "#7c9cff",
  /** The accent at 8 % opacity (a chart's hover band). */
  accentTint: "rgba(124, 156, 255, 0.08)",
  /** `--color-ok` (emerald-400). */
  ok: "#34d399",
  /** `--color-warn` (amber-400). */
  warn: "#fbbf24",
  /** `--color-danger` (red-400). */
  danger: "#f87171",
  /** The `-soft` tints (300) of danger, warn and ok, for text on the dark panels. */
  dangerSoft: "#fca5a5",
  warnSoft: "#fcd34d",
  okSoft: "#6ee7b7",
} as const;
