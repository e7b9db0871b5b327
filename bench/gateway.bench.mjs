// Model gateway throughput: the ~1 MB `big-response` mock-model stream fetched through the gateway
// (token check, key swap, SSE metering, pipe) vs straight from the mock model, interleaved in one run.
// The mock model and the gateway each run in their own process, as in production (the gateway lives
// in the worker); the client keeps connections alive on all paths. For scale, the same run also
// measures a bare Node.js pipe proxy (no checks, no metering: the floor for an extra HTTP hop) and a
// raw TCP relay (sockets piped, Nagle off, nothing parsed: the floor for any extra hop at all).
// A second figure puts the mock model on a CPU of its own (taskset), as a remote provider is, with
// the client and the gateway on the others: what the hop costs when the model does not compete for
// the gateway's CPU.
import { spawnSync } from "node:child_process";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { importSource } from "./bundle.mjs";
import { median, ROOT, startProcess, writeResult } from "./lib.mjs";

const KEY = "sk-bench-not-a-real-key";
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 40);
const role = process.argv[2];

// The parent bundles the modules (esbuild); the servers import the bundles, so no esbuild runs in them.
const bundled = (name) =>
  import(pathToFileURL(path.join(ROOT, "node_modules", ".cache", "invariant-bench", `${name}.mjs`)).href);

async function serveForever(close) {
  await new Promise((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await close();
}

if (role === "serve-mock") {
  const { startMockModel } = await bundled("mock-model-server");
  const mock = await startMockModel({ scriptsDir: path.join(ROOT, "mock-scripts"), apiKey: KEY });
  console.log(mock.url);
  await serveForever(() => mock.close());
} else if (role === "serve-gateway") {
  const { startModelGateway } = await bundled("model-gateway");
  const gateway = await startModelGateway({
    upstreamBaseUrl: process.argv[3],
    credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
  });
  console.log(`${gateway.url} ${gateway.issueRunToken({ runId: "bench" })}`);
  await serveForever(() => gateway.close());
} else if (role === "serve-bare-proxy") {
  const upstream = new URL(process.argv[3]);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname + req.url.slice("/v1".length),
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(`http://127.0.0.1:${server.address().port}/v1`);
  await serveForever(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    agent.destroy();
  });
} else if (role === "serve-tcp-relay") {
  const upstream = new URL(process.argv[3]);
  const open = new Set();
  const server = net.createServer({ noDelay: true }, (client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    const target = net.connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true });
    client.pipe(target).pipe(client);
    const end = () => {
      client.destroy();
      target.destroy();
    };
    client.on("error", end).on("close", end);
    target.on("error", end).on("close", end);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(`http://127.0.0.1:${server.address().port}/v1`);
  await serveForever(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      for (const socket of open) socket.destroy();
    });
  });
} else {
  const firstLine = async (proc) => {
    const deadline = Date.now() + 30_000;
    while (!proc.stdout().includes("\n")) {
      if (Date.now() > deadline || proc.child.exitCode !== null)
        throw new Error(`server did not start: ${proc.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return proc.stdout().split("\n")[0].trim();
  };
  const self = path.join(ROOT, "bench", "gateway.bench.mjs");
  const body = JSON.stringify({ model: "big-response", stream: true, input: [] });

  /** One round: fresh processes (so a fresh placement on the CPUs), warm-up, then interleaved medians. */
  async function round(options) {
    const mockProc =
      options.mockCpu === null
        ? startProcess(process.execPath, [self, "serve-mock"])
        : startProcess("taskset", ["-c", options.mockCpu, process.execPath, self, "serve-mock"]);
    const procs = [mockProc];
    const agent = new http.Agent({ keepAlive: true });
    try {
      const mockUrl = await firstLine(mockProc);
      const start = async (role) => {
        const proc = startProcess(process.execPath, [self, role, mockUrl]);
        procs.push(proc);
        return (await firstLine(proc)).split(" ");
      };
      const [gatewayUrl, token] = await start("serve-gateway");
      const [bareUrl] = await start("serve-bare-proxy");
      const [relayUrl] = await start("serve-tcp-relay");
      const fetchAll = (baseUrl, bearer) =>
        new Promise((resolve, reject) => {
          const began = performance.now();
          const req = http.request(
            `${baseUrl}/responses`,
            {
              method: "POST",
              agent,
              headers: {
                authorization: `Bearer ${bearer}`,
                "content-type": "application/json",
                "content-length": Buffer.byteLength(body),
              },
            },
            (res) => {
              let bytes = 0;
              res.on("data", (chunk) => (bytes += chunk.length));
              res.on("end", () =>
                res.statusCode === 200
                  ? resolve({ ms: performance.now() - began, bytes })
                  : reject(new Error(`HTTP ${res.statusCode}`)),
              );
              res.on("error", reject);
            },
          );
          req.on("error", reject);
          req.end(body);
        });
      const paths = {
        direct: [mockUrl, KEY],
        gateway: [gatewayUrl, token],
        bare: [bareUrl, KEY],
        relay: [relayUrl, KEY],
      };
      for (let i = 0; i < WARMUP; i++) for (const [url, bearer] of Object.values(paths)) await fetchAll(url, bearer);
      const times = { direct: [], gateway: [], bare: [], relay: [] };
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        for (const [name, [url, bearer]] of Object.entries(paths)) {
          const result = await fetchAll(url, bearer);
          times[name].push(result.ms);
          bytes = result.bytes;
        }
      }
      const ms = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
      return { ...ms, bytes, ratio: ms.gateway / ms.direct };
    } finally {
      agent.destroy();
      for (const proc of procs.reverse()) await proc.stop();
    }
  }

  async function rounds(options) {
    const all = [];
    for (let i = 0; i < ROUNDS; i++) all.push(await round(options));
    return all;
  }

  const middleOf = (all) => [...all].sort((a, b) => a.ratio - b.ratio)[Math.floor(all.length / 2)];
  const list = (all, key) => all.map((r) => (r[key] / r.direct).toFixed(2)).join(", ");
  /** The median round's gateway time against its direct time. */
  const report = (name, all, notes) => {
    const middle = middleOf(all);
    writeResult({
      name,
      unit: "ms",
      value: Number(middle.gateway.toFixed(2)),
      baseline: Number(middle.direct.toFixed(2)),
      notes,
    });
  };

  if (role === "measure-model-isolated") {
    // run under taskset on CPUs 1..n-1 by the parent; the mock goes to CPU 0
    console.log(JSON.stringify(await rounds({ mockCpu: "0" })));
  } else {
    await importSource("src/server/mock-model/mock-model-server.ts");
    await importSource("src/server/gateway/model-gateway.ts");
    const all = await rounds({ mockCpu: null });
    report(
      "gateway-stream-1mb",
      all,
      `the median of ${ROUNDS} rounds, each with fresh processes, ${WARMUP} warm-up rounds and the median of ${RUNS} interleaved requests: POST /v1/responses streaming ${(middleOf(all).bytes / 1e6).toFixed(2)} MB of SSE (mock script big-response) through the model gateway (token check, key swap, usage metering) vs directly from the mock model. Ratio per round: gateway ${list(all, "gateway")}; for scale, a bare Node.js pipe proxy (no checks, no metering) ${list(all, "bare")} and a raw TCP relay (nothing parsed) ${list(all, "relay")}. Separate processes, keep-alive, loopback. Target ≤ 1.1×.`,
    );

    const cpus = os.availableParallelism();
    if (cpus < 2 || spawnSync("taskset", ["-c", "0", "true"]).status !== 0) {
      console.log("gateway-stream-1mb-model-isolated: skipped (needs taskset and 2+ CPUs)");
    } else {
      const others = cpus === 2 ? "1" : `1-${cpus - 1}`;
      const measured = spawnSync("taskset", ["-c", others, process.execPath, self, "measure-model-isolated"], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
        maxBuffer: 1 << 20,
      });
      if (measured.status !== 0) throw new Error(`the model-isolated measurement failed (exit ${measured.status})`);
      const isolated = JSON.parse(measured.stdout.trim().split("\n").pop());
      report(
        "gateway-stream-1mb-model-isolated",
        isolated,
        `as gateway-stream-1mb, with the mock model alone on CPU 0 (as a remote provider would be) and the client and the gateways on CPU ${others}; the median of ${ROUNDS} rounds. Ratio per round: gateway ${list(isolated, "gateway")}; bare Node.js proxy ${list(isolated, "bare")}; raw TCP relay (the floor for any extra hop) ${list(isolated, "relay")}.`,
      );
    }
  }
}
