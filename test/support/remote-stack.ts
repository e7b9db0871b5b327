import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import type { SessionView } from "../../src/shared/session-schemas";
import type { StudyView } from "../../src/shared/study-schemas";
import { BIN, cleanEnv, ROOT, signalProcess, type Launched } from "./launch";
import type { SecondEngine } from "./second-engine";
import { tempDir } from "./temp";

/** A worker started "on another host": its process, what it logged so far, and its exit. */
export interface RemoteWorker {
  child: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
}

/**
 * What the tests of workers on other hosts (test/remote-worker.test.ts, test/remote-registry.test.ts) do with
 * their stack: the launcher's tRPC API, waiting for states, and `invariant-web worker` on the second engine
 * with its own data dir, knowing the web process only by URL. The stack's parts are read through getters
 * (they are made in beforeAll). No test runner in here: bench/remote-worker.bench.mjs uses it too.
 */
export function remoteStack(parts: {
  app: () => Launched;
  engine: () => SecondEngine;
  redisUrl: () => string;
  remote: () => RemoteWorker | null;
  remoteData: string;
}) {
  async function call<T>(procedure: string, input?: unknown, method: "GET" | "POST" = "GET"): Promise<T> {
    const app = parts.app();
    const query = method === "GET" && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
    const response = await fetch(`${app.base}/api/trpc/${procedure}${query}`, {
      method,
      headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
      ...(method === "POST" ? { body: JSON.stringify(input ?? {}) } : {}),
    });
    const json = (await response.json()) as { result?: { data: T }; error?: { message: string } };
    if (!response.ok || !json.result) throw new Error(`${procedure}: ${response.status} ${json.error?.message ?? ""}`);
    return json.result.data;
  }
  const mutate = <T>(procedure: string, input: unknown) => call<T>(procedure, input, "POST");

  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 800)}\nremote worker log:\n${parts.remote()?.log().slice(-3000) ?? ""}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** `invariant-web worker` on the second engine, without any model credential (its trials relay to the dashboard). */
  function startRemoteWorker(tokenFile: string, extraArgs: string[] = []): RemoteWorker {
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      DOCKER_HOST: parts.engine().dockerHost,
      CODEX_HOME: tempDir("remote-codex-home"),
    };
    for (const name of ["OPENAI", "ANTHROPIC", "GEMINI", "GOOGLE"])
      for (const end of ["API_KEY", "BASE_URL"]) delete env[`${name}_${end}`];
    delete env.GOOGLE_GEMINI_BASE_URL;
    const child = spawn(
      process.execPath,
      [
        BIN,
        "worker",
        ...["--redis-url", parts.redisUrl(), "--dashboard-url", parts.app().base, "--worker-token-file", tokenFile],
        ...["--data-dir", parts.remoteData, "--concurrency", "1", ...extraArgs],
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { child, log: () => log, exited };
  }

  /** A worker token made on the System page's API, in a file of mode 600. */
  async function workerTokenFile(name: string): Promise<{ file: string; token: string; id: string }> {
    const created = await mutate<{ token: string; worker: { id: string } }>("system.createWorkerToken", { name });
    const file = `${tempDir("remote-token")}/token`;
    fs.writeFileSync(file, `${created.token}\n`, { mode: 0o600 });
    return { file, token: created.token, id: created.worker.id };
  }

  async function remoteOnline(): Promise<string> {
    const line = await until(
      "the remote worker online",
      () => Promise.resolve(/worker (\S+) online/.exec(parts.remote()?.log() ?? "")),
      (match) => match !== null,
      60_000,
    );
    return line?.[1] ?? "";
  }

  async function readyProject(projectDir: string): Promise<string> {
    const project = await mutate<{ id: string }>("projects.add", { hostPath: projectDir, name: "remote" });
    await mutate("environments.prepare", { projectId: project.id });
    await until(
      "the environment",
      () => call<{ versions: { status: string }[] }>("environments.overview", { projectId: project.id }),
      (overview) => overview.versions.some((version) => version.status !== "building"),
      300_000,
    ).then((overview) => {
      const states = overview.versions.map((version) => version.status);
      if (states.join() !== "ready") throw new Error(`the environment did not get ready: ${states.join(", ")}`);
    });
    return project.id;
  }

  /** The launcher's worker child (its argv names the `worker` command). */
  const localWorkerPid = () =>
    parts
      .app()
      .childPids()
      .find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("worker"));

  /** Runs `task` with the launcher's worker child paused (SIGSTOP), so every trial lands on the remote worker. */
  async function withLocalPaused<T>(task: () => Promise<T>): Promise<T> {
    const local = localWorkerPid();
    if (local === undefined) throw new Error("the launcher's worker child was not found");
    signalProcess(local, "SIGSTOP");
    try {
      // a worker stopped in its blocking fetch is out of it once the fetch times out (BullMQ's drain delay, 5 s)
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      return await task();
    } finally {
      // (a worker child that died meanwhile was restarted by the launcher: nothing to resume)
      if (fs.existsSync(`/proc/${local}`)) signalProcess(local, "SIGCONT");
    }
  }

  return {
    call,
    mutate,
    until,
    study: (studyId: string) => call<StudyView>("studies.get", { studyId }),
    session: (sessionId: string) => call<SessionView>("sessions.get", { sessionId }),
    startContinue: (projectId: string, trialId: string) =>
      mutate<SessionView>("sessions.start", { projectId, kind: "shell", fromTrialId: trialId }),
    sessionContainer: (sessionId: string) =>
      spawnSync("docker", ["ps", "-aq", "--filter", `label=invariant.session=${sessionId}`], {
        encoding: "utf8",
      }).stdout.trim(),
    hostImageId: (imageId: string) =>
      spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", imageId], { encoding: "utf8" }).stdout.trim(),
    startRemoteWorker,
    workerTokenFile,
    remoteOnline,
    readyProject,
    localWorkerPid,
    withLocalPaused,
  };
}
