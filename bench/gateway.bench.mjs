// Model gateway throughput: the ~1 MB `big-response` mock-model stream fetched through the gateway
// (token check, key swap, SSE metering, pipe) vs straight from the mock model, interleaved in one run.
// The mock model and the gateway each run in their own process, as in production (the gateway lives
// in the worker); the client keeps connections alive on all paths. For scale, the same run also
// measures a bare Node.js pipe proxy (no checks, no metering: the floor for an extra HTTP hop) and a
// raw TCP relay (sockets piped, Nagle off, nothing parsed: the floor for any extra hop at all).
// A second figure puts the mock model on a CPU of its own (taskset), as a remote provider is, with
// the client and the gateway on the others: what the hop costs when the model does not compete for
// the gateway's CPU. Each figure is also reported against the raw TCP relay of the same rounds (the
// floor for any hop on this machine), and a third figure times the gateway's request policy alone
// (parse, check, re-serialise a Responses request) per request, on Codex-shaped bodies of three sizes.
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
  // the run's policy as the worker sets it for a trial in network mode none: model pinned, no hosted tools
  const policy = { model: "big-response", hostedTools: false };
  console.log(`${gateway.url} ${gateway.issueRunToken({ runId: "bench", policy })}`);
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
  /**
   * A Responses request shaped like Codex 0.171's: developer instructions (~24 KB), its tools (function
   * schemas and a namespace), the task, then `steps` tool calls with their outputs (~2.5 KB each).
   */
  const codexBody = (steps) => {
    const text = (bytes, seed) => `${seed} `.repeat(Math.ceil(bytes / (seed.length + 1))).slice(0, bytes);
    const schema = { type: "object", properties: { cmd: { type: "string", description: text(300, "cmd") } } };
    const tool = (name) => ({
      type: "function",
      name,
      description: text(600, name),
      strict: false,
      parameters: schema,
    });
    const input = [
      { type: "message", role: "developer", content: [{ type: "input_text", text: text(24_000, "instructions") }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Fix the failing calendar tests." }] },
    ];
    for (let i = 0; i < steps; i++)
      input.push(
        {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify({ cmd: `sed -n ${i},+40p src/a.js` }),
          call_id: `call_${i}`,
        },
        { type: "function_call_output", call_id: `call_${i}`, output: text(2_400, `line ${i}`) },
      );
    return {
      model: "gpt-5-codex",
      stream: true,
      input,
      tools: [
        ...["exec_command", "write_stdin", "request_user_input", "view_image", "get_goal", "create_goal"].map(tool),
        {
          type: "namespace",
          name: "multi_agent_v1",
          description: "sub-agents",
          tools: ["spawn_agent", "send_input", "close_agent"].map(tool),
        },
      ],
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "0199",
    };
  };

  /** The request policy alone (parse, check, re-serialise), in µs of CPU per request: the median of 9 batches. */
  async function measurePolicy() {
    const { checkResponsesBody } = await importSource("src/server/core/gateway/request-policy.ts");
    const policy = { model: "gpt-5-codex", hostedTools: false };
    const sizes = [0, 100, 400].map((steps) => {
      const body = Buffer.from(JSON.stringify(codexBody(steps)));
      const check = () => {
        const out = checkResponsesBody({ body, policy });
        if (!Buffer.isBuffer(out)) throw new Error(`the policy refused the bench body: ${out.message}`);
      };
      const batch = Math.max(20, Math.round(4e6 / body.length));
      for (let i = 0; i < batch * 3; i++) check();
      const cpu = [];
      const wall = [];
      for (let round = 0; round < 9; round++) {
        const began = performance.now();
        const usage = process.cpuUsage();
        for (let i = 0; i < batch; i++) check();
        const used = process.cpuUsage(usage);
        cpu.push((used.user + used.system) / batch);
        wall.push(((performance.now() - began) * 1000) / batch);
      }
      // CPU time is what the policy costs the worker; wall time also counts waiting for a CPU on a busy host
      return { steps, kb: body.length / 1024, us: median(cpu), wallUs: median(wall) };
    });
    const [first, ...longer] = sizes;
    writeResult({
      name: "gateway-policy-per-request",
      unit: "µs",
      value: Number(first.us.toFixed(1)),
      baseline: null,
      notes: `the gateway's request policy on its own (JSON.parse, model pin, hosted-tool and URL-input checks, JSON.stringify of what is forwarded), in-process, CPU time per request, the median of 9 batches: ${first.us.toFixed(0)} µs for a Codex-shaped first request (${first.kb.toFixed(0)} KB: instructions, 9 tools, the task); ${longer.map((s) => `${s.us.toFixed(0)} µs at ${s.steps} tool steps (${s.kb.toFixed(0)} KB)`).join(", ")}; about ${(longer[1].us / longer[1].kb).toFixed(1)} µs per KB of conversation, paid once per model request (Codex resends the conversation each time). Wall time in the same batches: ${sizes.map((s) => `${s.wallUs.toFixed(0)} µs`).join(", ")}. A real model takes seconds per response.`,
    });
  }

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
  const list = (all, key, base = "direct") => all.map((r) => (r[key] / r[base]).toFixed(2)).join(", ");
  /** The median round's gateway time against its direct time, and the median round against its raw relay. */
  const report = (name, all, notes) => {
    const middle = middleOf(all);
    writeResult({
      name,
      unit: "ms",
      value: Number(middle.gateway.toFixed(2)),
      baseline: Number(middle.direct.toFixed(2)),
      notes,
    });
    const byRelay = [...all].sort((a, b) => a.gateway / a.relay - b.gateway / b.relay)[Math.floor(all.length / 2)];
    writeResult({
      name: `${name}-vs-relay`,
      unit: "ms",
      value: Number(byRelay.gateway.toFixed(2)),
      baseline: Number(byRelay.relay.toFixed(2)),
      notes: `${name} against the raw TCP relay (sockets piped, nothing parsed: the floor for any extra hop) measured in the same rounds; the median round by that ratio. Gateway ÷ relay per round: ${list(all, "gateway", "relay")}.`,
    });
  };

  if (role === "policy") {
    // `node bench/gateway.bench.mjs policy`: only the request policy's figure
    await measurePolicy();
  } else if (role === "measure-model-isolated") {
    // run under taskset on CPUs 1..n-1 by the parent; the mock goes to CPU 0
    console.log(JSON.stringify(await rounds({ mockCpu: "0" })));
  } else {
    await importSource("src/server/core/mock-model/mock-model-server.ts");
    await importSource("src/server/core/gateway/model-gateway.ts");
    await measurePolicy();
    const all = await rounds({ mockCpu: null });
    report(
      "gateway-stream-1mb",
      all,
      `the median of ${ROUNDS} rounds, each with fresh processes, ${WARMUP} warm-up rounds and the median of ${RUNS} interleaved requests: POST /v1/responses streaming ${(middleOf(all).bytes / 1e6).toFixed(2)} MB of SSE (mock script big-response) through the model gateway (token check, request policy, key swap, usage metering) vs directly from the mock model. Ratio per round: gateway ${list(all, "gateway")}; for scale, a bare Node.js pipe proxy (no checks, no metering) ${list(all, "bare")} and a raw TCP relay (nothing parsed) ${list(all, "relay")}. Separate processes, keep-alive, loopback. Target ≤ 1.1×.`,
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
        `as gateway-stream-1mb, with the mock model alone on CPU 0 (as a remote provider would be) and the client and the gateways on CPU ${others}; the median of ${ROUNDS} rounds. Target ≤ 1.35× direct. Ratio per round: gateway ${list(isolated, "gateway")}; bare Node.js proxy ${list(isolated, "bare")}; raw TCP relay (the floor for any extra hop) ${list(isolated, "relay")}.`,
      );
    }
  }
}
