/** The flags of `trial comment` (--body, --path, --lines A-B) and `trial follow-up` (--feedback, --wait), for parseArgs. */
export const FEEDBACK_OPTIONS = {
  body: { type: "string" },
  path: { type: "string" },
  lines: { type: "string" },
  feedback: { type: "string" },
  wait: { type: "boolean", default: false },
} as const;
