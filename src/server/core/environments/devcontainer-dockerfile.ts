/**
 * The images a Dockerfile builds FROM that must already be on the engine (nothing is pulled): every
 * `FROM` (and `COPY --from=`) that names neither an earlier stage nor `scratch`, with `ARG`s before the
 * first `FROM` substituted (their defaults, overridden by build args). A FROM whose image cannot be told,
 * and an `ADD` of a URL or git repository (the engine itself would download it), are problems.
 */
export function baseImagesOf(options: { text: string; args: Record<string, string> }): {
  images: string[];
  problems: string[];
} {
  const lines = logicalLines(options.text);
  const globalArgs: Record<string, string> = {};
  const stages = new Set<string>();
  const images: string[] = [];
  const problems: string[] = [];
  let sawFrom = false;
  for (const line of lines) {
    const [instruction = "", ...rest] = line.split(/\s+/);
    const keyword = instruction.toUpperCase();
    if (keyword === "ARG" && !sawFrom) {
      for (const declaration of rest) {
        const [name = "", ...value] = declaration.split("=");
        globalArgs[name] = options.args[name] ?? unquote(value.join("="));
      }
    }
    if (keyword === "ADD" && rest.some((word) => /^(https?|git|ssh):\/\/|^git@|\.git(#|$)/i.test(word)))
      problems.push(
        `"${line.slice(0, 120)}" downloads from the network, and the build is offline: COPY the file into the project instead`,
      );
    const from =
      keyword === "COPY" || keyword === "ADD"
        ? /^--from=(.+)$/i.exec(rest.find((word) => /^--from=/i.test(word)) ?? "")
        : null;
    if (from?.[1] && !stages.has(from[1].toLowerCase()) && !/^\d+$/.test(from[1]) && !images.includes(from[1]))
      images.push(substitute(from[1], globalArgs));
    if (keyword !== "FROM") continue;
    sawFrom = true;
    const words = rest.filter((word) => !word.startsWith("--"));
    const reference = substitute(words[0] ?? "", globalArgs);
    if (words.length >= 3 && words[1]?.toUpperCase() === "AS") stages.add((words[2] ?? "").toLowerCase());
    if (!reference || /\$/.test(reference)) {
      problems.push(`FROM ${words[0] ?? ""} names no image (an ARG without a value?): give the ARG a default`);
      continue;
    }
    if (reference === "scratch" || stages.has(reference.toLowerCase()) || images.includes(reference)) continue;
    images.push(reference);
  }
  if (!sawFrom) problems.push("the Dockerfile has no FROM line");
  return { images, problems };
}

/** Instructions one per line: comments and blank lines dropped, `\` continuations joined. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (current === "" && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    out.push((current + line).trim());
    current = "";
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function unquote(value: string): string {
  return /^".*"$|^'.*'$/.test(value) ? value.slice(1, -1) : value;
}

/** `$NAME`, `${NAME}` and `${NAME:-default}` with the global ARGs; unknown names stay as written. */
function substitute(word: string, args: Record<string, string>): string {
  return word.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced, fallback, bare) => {
      const name = (braced ?? bare) as string;
      const value = args[name];
      if (value !== undefined && value !== "") return value;
      return typeof fallback === "string" ? fallback : whole;
    },
  );
}
