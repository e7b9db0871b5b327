import type { BytePath } from "./byte-path";

/**
 * gitignore patterns (https://git-scm.com/docs/gitignore) compiled to regular expressions over byte
 * paths. Supported: comments, blank lines, trailing-space trimming, "\" escapes, "!" negation,
 * trailing "/" (directories only), anchoring by a leading or inner "/", "*", "?", "[...]" classes,
 * and "**" as a leading "** /", inner "/** /" or trailing "/**". The walker never descends into an
 * excluded directory, which gives git's rule that a file cannot be re-included below one.
 */
export interface IgnoreRule {
  source: string;
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the base name only (pattern without a "/"), or against the path relative to the file's directory. */
  baseNameOnly: boolean;
  regex: RegExp;
}

/** One .gitignore file: its rules apply to paths below `base` (the directory holding it, "" for the root). */
export interface IgnoreFile {
  base: BytePath;
  rules: IgnoreRule[];
}

function escapeRegex(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char;
}

/** Translates a bracket expression starting at `start` ("["); returns the regex class and the index after "]", or null when unclosed. */
function bracket(glob: string, start: number): { text: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < glob.length) {
    const char = glob[i] ?? "";
    if (char === "]" && !first) return { text: `[${negate ? "^" : ""}${body}]`, end: i + 1 };
    if (char === "\\" && i + 1 < glob.length) {
      const next = glob[i + 1] ?? "";
      body += /[A-Za-z0-9]/.test(next) ? next : `\\${next}`; // "\d" is a literal d, not a digit class
      i += 2;
    } else {
      // "-" keeps its range meaning; everything else is literal inside the class
      body += char === "-" ? "-" : /[\\^\]]/.test(char) ? `\\${char}` : char;
      i++;
    }
    first = false;
  }
  return null;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "\\") {
      if (i + 1 < glob.length) out += escapeRegex(glob[++i] ?? "");
    } else if (char === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0;
        const afterSlash = glob[i - 1] === "/";
        const beforeSlash = glob[i + 2] === "/";
        const atEnd = i + 2 === glob.length;
        if (atStart && beforeSlash) {
          out += "(?:.*/)?"; // "**/x": x in any directory
          i += 2;
          continue;
        }
        if (afterSlash && beforeSlash) {
          out += "(?:.*/)?"; // "a/**/b": zero or more directories
          i += 2;
          continue;
        }
        if (afterSlash && atEnd) {
          out += ".*"; // "a/**": everything inside
          i += 1;
          continue;
        }
        while (glob[i + 1] === "*") i++; // any other run of stars is one star
      }
      out += "[^/]*";
    } else if (char === "?") out += "[^/]";
    else if (char === "[") {
      const cls = bracket(glob, i);
      if (cls) {
        out += cls.text;
        i = cls.end - 1;
      } else out += "\\[";
    } else out += escapeRegex(char);
  }
  return out;
}

/** Compiles one pattern line, or returns null for blank lines and comments. `anyDepth` matches a pattern with an inner "/" at every depth too. */
export function compileRule(line: string, options: { anyDepth?: boolean } = {}): IgnoreRule | null {
  let pattern = line.endsWith("\r") ? line.slice(0, -1) : line;
  // trailing spaces are ignored unless escaped with a backslash
  while (pattern.endsWith(" ") && !pattern.endsWith("\\ ")) pattern = pattern.slice(0, -1);
  if (pattern === "" || pattern.startsWith("#")) return null;
  let negate = false;
  if (pattern.startsWith("!")) {
    negate = true;
    pattern = pattern.slice(1);
  }
  let dirOnly = false;
  if (pattern.endsWith("/") && !pattern.endsWith("\\/")) {
    dirOnly = true;
    pattern = pattern.replace(/\/+$/, "");
  }
  if (pattern === "") return null;
  const anchored = pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const baseNameOnly = !anchored;
  const prefix = anchored && options.anyDepth && !pattern.startsWith("**/") ? "(?:.*/)?" : "";
  // "s": a name may contain a newline, and ".*" must cross it
  const regex = new RegExp(`^${prefix}${globToRegex(pattern)}$`, "s");
  return { source: line, negate, dirOnly, baseNameOnly, regex };
}

/** Parses the text of a .gitignore file (read as a byte string). */
export function parseIgnoreFile(text: string, base: BytePath): IgnoreFile {
  const rules: IgnoreRule[] = [];
  for (const line of text.split("\n")) {
    const rule = compileRule(line);
    if (rule) rules.push(rule);
  }
  return { base, rules };
}

/** The decision of one rule list for a path relative to its base: true = ignored, false = re-included, undefined = no rule matched. Last match wins. */
export function matchRules(rules: readonly IgnoreRule[], relative: BytePath, isDir: boolean): boolean | undefined {
  const base = relative.slice(relative.lastIndexOf("/") + 1);
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i];
    if (!rule || (rule.dirOnly && !isDir)) continue;
    if (rule.regex.test(rule.baseNameOnly ? base : relative)) return !rule.negate;
  }
  return undefined;
}

/**
 * Whether `rel` (relative to the tree root) is ignored by a stack of .gitignore files ordered from
 * the root down: the deepest file with a matching rule decides, as in git.
 */
export function isIgnored(stack: readonly IgnoreFile[], rel: BytePath, isDir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const file = stack[i];
    if (!file) continue;
    if (file.base !== "" && !rel.startsWith(`${file.base}/`)) continue;
    const decision = matchRules(file.rules, file.base === "" ? rel : rel.slice(file.base.length + 1), isDir);
    if (decision !== undefined) return decision;
  }
  return false;
}
