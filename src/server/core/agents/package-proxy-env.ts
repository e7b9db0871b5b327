/**
 * The shell lines that point a container's package managers at the model gateway's package proxy
 * (src/server/core/gateway/package-proxy.ts) when the container has no route out — network mode `none`,
 * decided when the container starts, since a session's mode can change between starts. The run token
 * (in GW_TOKEN by then) is the proxy password; the gateway's own address stays direct (`no_proxy`), or
 * Codex would send its model requests through the proxy. Plain HTTP only: Debian's apt works, HTTPS
 * registries need network mode internet.
 */
export function packageProxyLines(options: { bridgePort: number }): string[] {
  const proxy = `http://run:\${GW_TOKEN}@127.0.0.1:${options.bridgePort}`;
  return [
    "routes=$(grep -cv '^Iface' /proc/net/route 2>/dev/null)",
    `if [ -n "\${GW_TOKEN:-}" ] && [ "\${routes:-0}" -eq 0 ]; then`,
    `  http_proxy="${proxy}"; HTTP_PROXY="$http_proxy"; no_proxy="127.0.0.1,localhost"; NO_PROXY="$no_proxy"`,
    "  export http_proxy HTTP_PROXY no_proxy NO_PROXY",
    "fi",
    "unset routes",
  ];
}
