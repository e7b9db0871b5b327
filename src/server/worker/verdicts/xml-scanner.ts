/**
 * A small, tolerant XML scanner: enough for the JUnit files test runners write, not a validating
 * parser. One linear pass; it never throws. Comments, processing instructions and DOCTYPEs are
 * skipped; CDATA is text; a stray "<" that does not start a tag is text; an unterminated construct
 * ends the document.
 */

export interface XmlHandlers {
  onOpen: (name: string, attributes: Map<string, string>, selfClosing: boolean) => void;
  onClose: (name: string) => void;
  /** Raw text between tags: entities still encoded unless `cdata` (then it is literal). */
  onText: (raw: string, cdata: boolean) => void;
}

const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Decodes `&lt; &gt; &amp; &quot; &apos;` and numeric references; unknown entities stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code =
        body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code >= 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}

function isNameStart(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x3a || code > 0x7f
  );
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Skips a construct that ends with `terminator`; returns the index after it (or the end). */
function skipPast(text: string, from: number, terminator: string): number {
  const end = text.indexOf(terminator, from);
  return end < 0 ? text.length : end + terminator.length;
}

export function scanXml(options: { text: string } & XmlHandlers): void {
  const { text, onOpen, onClose, onText } = options;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const lt = text.indexOf("<", i);
    if (lt < 0) {
      onText(text.slice(i), false);
      return;
    }
    if (lt > i) onText(text.slice(i, lt), false);
    if (text.startsWith("<!--", lt)) {
      i = skipPast(text, lt + 4, "-->");
    } else if (text.startsWith("<![CDATA[", lt)) {
      const end = text.indexOf("]]>", lt + 9);
      onText(text.slice(lt + 9, end < 0 ? n : end), true);
      i = end < 0 ? n : end + 3;
    } else if (text.startsWith("<?", lt)) {
      i = skipPast(text, lt + 2, "?>");
    } else if (text.startsWith("<!", lt)) {
      i = skipPast(text, lt + 2, ">");
    } else if (text.charCodeAt(lt + 1) === 0x2f) {
      const end = text.indexOf(">", lt + 2);
      onClose(text.slice(lt + 2, end < 0 ? n : end).trim());
      i = end < 0 ? n : end + 1;
    } else if (lt + 1 < n && isNameStart(text.charCodeAt(lt + 1))) {
      i = scanOpenTag({ text, at: lt, onOpen });
    } else {
      onText("<", true); // a stray "<": literal text
      i = lt + 1;
    }
  }
}

/** Reads `<name a="1" b='2' c=3 />` from `at`; returns the index after the tag. */
function scanOpenTag(options: { text: string; at: number; onOpen: XmlHandlers["onOpen"] }): number {
  const { text, onOpen } = options;
  const n = text.length;
  let j = options.at + 1;
  while (j < n && isNameChar(text.charCodeAt(j))) j++;
  const name = text.slice(options.at + 1, j);
  const attributes = new Map<string, string>();
  for (;;) {
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (j >= n) {
      onOpen(name, attributes, false);
      return n;
    }
    const c = text.charCodeAt(j);
    if (c === 0x3e) {
      onOpen(name, attributes, false);
      return j + 1;
    }
    if (c === 0x2f) {
      if (text.charCodeAt(j + 1) === 0x3e) {
        onOpen(name, attributes, true);
        return j + 2;
      }
      j++;
      continue;
    }
    const nameStart = j;
    while (j < n && !isSpace(text.charCodeAt(j)) && text[j] !== "=" && text[j] !== ">" && text[j] !== "/") j++;
    const attribute = text.slice(nameStart, j);
    if (attribute === "") {
      j++; // a character no attribute can start with: skip it
      continue;
    }
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (text[j] !== "=") {
      attributes.set(attribute, "");
      continue;
    }
    j++;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    const quote = text[j];
    if (quote === '"' || quote === "'") {
      const end = text.indexOf(quote, j + 1);
      attributes.set(attribute, decodeEntities(text.slice(j + 1, end < 0 ? n : end)));
      j = end < 0 ? n : end + 1;
    } else {
      const valueStart = j;
      while (j < n && !isSpace(text.charCodeAt(j)) && text[j] !== ">") j++;
      attributes.set(attribute, decodeEntities(text.slice(valueStart, j)));
    }
  }
}
