import { clip } from "../echo-limit";

/**
 * What every API's request policy shares (no I/O): reading a body as one JSON object, the refusals
 * (another model, a hosted tool, an input by URL) and serialising the approved value again, so the
 * upstream never reads a different request than the one checked (duplicate keys, odd encodings).
 */
export interface PolicyRefusal {
  status: number;
  type: string;
  message: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isRefusal(value: unknown): value is PolicyRefusal {
  return isRecord(value) && typeof value.status === "number" && typeof value.message === "string";
}

/** The body as a JSON object, or a refusal naming what the route forwards (`what`: "Responses API requests"). */
export function parseBodyObject(body: Buffer, what: string): Record<string, unknown> | PolicyRefusal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (isRecord(parsed)) return parsed;
  return {
    status: 400,
    type: "invalid_request_body",
    message: `The model gateway forwards ${what} whose body is a JSON object; this one is not.`,
  };
}

/** The approved value as the bytes to send upstream. */
export function serialiseBody(parsed: unknown): Buffer | PolicyRefusal {
  try {
    return Buffer.from(JSON.stringify(parsed), "utf8");
  } catch {
    // nested deeper than the stack allows: no real request is
    return {
      status: 400,
      type: "invalid_request_body",
      message: "The model gateway refused this request: its JSON is nested too deeply to check.",
    };
  }
}

export function hostedRefusal(what: string): PolicyRefusal {
  return {
    status: 400,
    type: "hosted_tool_not_allowed",
    message: `The model gateway refused this request: ${what}. This project's network mode is "none", so the provider may not reach the outside world for the run; switch the project to "internet", or allow hosted tools in its settings.`,
  };
}

export function urlRefusal(what: string, inline = "a data: URL or file_data"): PolicyRefusal {
  return {
    status: 400,
    type: "url_input_not_allowed",
    message: `The model gateway refused this request: ${what}. This project's network mode is "none"; pass the content inline (${inline}), switch the project to "internet", or allow hosted tools in its settings.`,
  };
}

export function modelRefusal(allowed: string, asked: unknown): PolicyRefusal {
  const named = typeof asked === "string" ? `"${clip(asked)}"` : "a request without a model";
  return {
    status: 400,
    type: "model_not_allowed",
    message:
      allowed === ""
        ? `The model gateway refused this request for ${named}: this run's configuration names no model, so the gateway forwards no model request for it. Name the model the agent uses in the configuration (a command harness too).`
        : `The model gateway refused this request: this run may use only the model "${clip(allowed)}" (its configuration's), not ${named}.`,
  };
}

/**
 * Walks a JSON value iteratively (bounded, so a deeply nested body cannot exhaust the stack) and returns
 * the first thing `find` names in one of its objects, or null.
 */
export function findInObjects(value: unknown, find: (object: Record<string, unknown>) => string | null): string | null {
  const stack: unknown[] = [value];
  let visited = 0;
  while (stack.length > 0) {
    const next = stack.pop();
    if (++visited > 1_000_000) return "(a conversation too large to check)";
    if (Array.isArray(next)) {
      for (const item of next) if (typeof item === "object" && item !== null) stack.push(item);
      continue;
    }
    if (!isRecord(next)) continue;
    const found = find(next);
    if (found) return found;
    for (const child of Object.values(next)) if (typeof child === "object" && child !== null) stack.push(child);
  }
  return null;
}
