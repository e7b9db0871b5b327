import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/**
 * A second invariant-web, started like a new user's (`invariant-web --data-dir … --port 0 --no-open`)
 * with a fresh data dir, no OPENAI_API_KEY and an empty host Codex home: no model access at all. Its
 * OPENAI_BASE_URL is a recording stand-in in front of the bundled mock model, so a test sees which
 * key reached "the provider". The global instance (global-setup.ts) is not touched.
 */
export interface SecondInstance {
  printedUrl: string;
  origin: string;
  adminToken: string;
  dataDir: string;
  /** Everything the product wrote to stderr (its log). */
  stderr(): string;
  /** The authorization header of every request that reached the stand-in provider. */
  authorizations: string[];
  stop(): Promise<void>;
}

const REPO = path.resolve(import.meta.dirname, "..");
const BIN = path.join(REPO, "bin", "invariant-web.mjs");

function firstLine(child: ChildProcess, match: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${String(match)} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const found = match.exec(line.trim());
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once("exit", (code) => reject(new Error(`exited (${String(code)}) before printing its line`)));
  });
}

/** Forwards to the mock model and records each request's authorization header. */
async function recordingProvider(mockUrl: string, authorizations: string[]): Promise<http.Server & { url: string }> {
  const target = new URL(mockUrl);
  const server = http.createServer((req, res) => {
    authorizations.push(String(req.headers.authorization ?? ""));
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` });
}

export async function startSecondInstance(): Promise<SecondInstance> {
  // A long folder name, as real home folders have: the Setup page shows it unbroken in the Data directory
  // check, so a page that overflows a phone on long paths fails here on any checkout, not only in deep clones;
  // and trials run with a gateway socket path past a unix socket's 108 bytes (the worker moves it to /tmp).
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-fresh-data-directory-named-as-long-as-real-ones-"));
  const codexHome = mkdtempSync(path.join(os.tmpdir(), "invariant-e2e-no-codex-"));
  const mock = spawn(process.execPath, [BIN, "mock-model"], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
  const mockUrl = (await firstLine(mock, /^http:\/\/\S+\/v1$/, 30_000))[0];
  const authorizations: string[] = [];
  const provider = await recordingProvider(mockUrl, authorizations);
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_BASE_URL: provider.url, CODEX_HOME: codexHome };
  for (const name of [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "REDIS_URL",
    "INVARIANT_DATA_DIR",
  ])
    delete env[name];
  const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "--port", "0", "--no-open"], {
    cwd: REPO,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const printed = await firstLine(
    child,
    /^invariant-web \S+ is running at ((http:\/\/[^/\s]+)\/\?token=(\S+))$/,
    60_000,
  );
  const origin = printed[2]!;
  const adminToken = printed[3]!;
  return {
    printedUrl: printed[1]!,
    origin,
    adminToken,
    dataDir,
    stderr: () => stderr,
    authorizations,
    async stop() {
      const projects = await fetch(`${origin}/api/trpc/projects.list`, {
        headers: { authorization: `Bearer ${adminToken}` },
      })
        .then(async (r) => ((await r.json()) as { result: { data: { id: string }[] } }).result.data.map((p) => p.id))
        .catch(() => [] as string[]);
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      mock.kill("SIGTERM");
      provider.close();
      for (const id of projects) {
        const images = spawnSync("docker", ["images", "-q", "--filter", `label=invariant.project=${id}`], {
          encoding: "utf8",
        }).stdout.split("\n");
        const unique = [...new Set(images.filter(Boolean))];
        if (unique.length > 0) spawnSync("docker", ["rmi", "-f", ...unique], { stdio: "ignore" });
      }
      if (!process.env.INVARIANT_E2E_KEEP)
        for (const dir of [dataDir, `${dataDir}-demo`, codexHome]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
