/**
 * Size limits of the event stream: no single Redis entry over MAX_EVENT_ENTRY_BYTES. A log chunk that
 * would pass it is cut (with a marker); any other event has its long strings cut; what still does not
 * fit is refused. The recorder drops entries over the limit that someone else wrote.
 */
export const MAX_EVENT_ENTRY_BYTES = 1024 * 1024;
/** Strings longer than this are cut when an event is too big as a whole. */
export const MAX_EVENT_STRING_CHARS = 16 * 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A copy of `value` with every string longer than `maxChars` cut to that length plus a marker. */
export function cutLongStrings<T>(value: T, maxChars: number): T {
  const cut = (item: Json): Json => {
    if (typeof item === "string")
      return item.length > maxChars ? `${item.slice(0, maxChars)}[… ${item.length - maxChars} characters cut]` : item;
    if (Array.isArray(item)) return item.map(cut);
    if (item && typeof item === "object") return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, cut(v)]));
    return item;
  };
  return cut(value as Json) as T;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * The JSON of an event that fits one Redis entry: as it is when small enough; a log event's `data.text`
 * cut to fit (its tail marked); otherwise its long strings cut. Throws when even that is too big.
 */
export function fitEventJson(event: { type: string; data?: unknown }): string {
  const json = JSON.stringify(event);
  if (bytes(json) <= MAX_EVENT_ENTRY_BYTES) return json;
  const data = event.data as { text?: unknown } | undefined;
  if (typeof data?.text === "string") {
    const overhead = bytes(json) - bytes(JSON.stringify(data.text));
    // JSON escaping can grow a character up to 6 bytes: leave room for the worst case
    const keepChars = Math.max(0, Math.floor((MAX_EVENT_ENTRY_BYTES - overhead - 200) / 6));
    const text = `${data.text.slice(0, keepChars)}\n[… ${data.text.length - keepChars} characters left out of this event]\n`;
    return JSON.stringify({ ...event, data: { ...data, text } });
  }
  const cut = JSON.stringify(cutLongStrings(event, MAX_EVENT_STRING_CHARS));
  if (bytes(cut) <= MAX_EVENT_ENTRY_BYTES) return cut;
  throw new Error(
    `The ${event.type} event is ${bytes(json)} bytes, more than the ${MAX_EVENT_ENTRY_BYTES} an event may take; it was not published.`,
  );
}
