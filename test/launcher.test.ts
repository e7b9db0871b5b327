import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { io as connectSocket, type Socket } from "socket.io-client";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp";
import { BIN, childrenOf, cleanEnv, isAlive, launch, ROOT, type Launched } from "./support/launch";

const running: Launched[] = [];
afterAll(async () => {
  for (const app of running) await app.stop("SIGTERM"); // SIGTERM: the launcher stops its worker and private Redis
});

async function start(dataDir: string): Promise<Launched> {
  const app = await launch({ dataDir });
  running.push(app);
  return app;
}

function trpc(
  app: Launched,
  procedure: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = {
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  if (options.body !== undefined) {
    return fetch(`${app.base}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(options.body),
    });
  }
  return fetch(`${app.base}/api/trpc/${procedure}`, { headers });
}

function socket(
  app: Launched,
  headers: Record<string, string>,
): Promise<{ socket: Socket; connected: boolean; error: string | null }> {
  return new Promise((resolve) => {
    const s = connectSocket(app.base, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: headers,
      reconnection: false,
      timeout: 5000,
    });
    s.on("connect", () => resolve({ socket: s, connected: true, error: null }));
    s.on("connect_error", (error) => resolve({ socket: s, connected: false, error: error.message }));
  });
}

describe("invariant-web launcher", () => {
  it("keeps projects across a SIGTERM restart and leaves no child process or private Redis behind", async () => {
    const dataDir = tempDir("launch");
    const projectDir = tempDir("project");
    const first = await start(dataDir);
    expect(first.stdoutLines()).toEqual([
      expect.stringMatching(/^invariant-web \S+ is running at http:\/\/127\.0\.0\.1:\d+\/\?token=a_/),
    ]);
    expect(fs.statSync(path.join(dataDir, "access-token")).mode & 0o777).toBe(0o600);
    const added = await trpc(first, "projects.add", { token: first.token, body: { hostPath: projectDir } });
    expect(added.status).toBe(200);
    // a CLI command that reads the database goes through the running dashboard (no second opener of the data dir)
    const exported = spawnSync(process.execPath, [BIN, "export", "nosuchstudy", "--data-dir", dataDir], {
      env: cleanEnv(),
      encoding: "utf8",
    });
    expect(exported.status).toBe(1);
    expect(exported.stderr).toContain('no study "nosuchstudy"');
    const children = first.childPids();
    expect(children.length).toBe(2); // worker + private Redis
    expect(await first.stop("SIGTERM")).toBe(0);
    for (const pid of children) expect(isAlive(pid), `child ${pid} still running`).toBe(false);
    expect(fs.existsSync(path.join(dataDir, "launcher.json"))).toBe(false);

    const second = await start(dataDir);
    expect(second.token).toBe(first.token);
    const list = (await (await trpc(second, "projects.list", { token: second.token })).json()) as {
      result: { data: { hostPath: string }[] };
    };
    expect(list.result.data.map((p) => p.hostPath)).toEqual([projectDir]);
    const again = second.childPids();
    await second.stop("SIGINT");
    for (const pid of again) expect(isAlive(pid)).toBe(false);
  });

  it("refuses a second launcher on the same data dir, and recovers after the first is killed", async () => {
    const dataDir = tempDir("launch");
    const first = await start(dataDir);
    const second = spawnSync(process.execPath, [BIN, "--data-dir", dataDir, "--port", "0", "--no-open"], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain("already running for");
    const children = first.childPids();
    await first.stop("SIGKILL");
    // the worker notices its launcher is gone and exits; the leftover Redis is replaced on the next start
    await expect.poll(() => children.filter(isAlive).length, { timeout: 45_000 }).toBeLessThanOrEqual(1); // timeout generous: CI machines are busy
    const third = await start(dataDir);
    await expect.poll(() => children.filter(isAlive).length, { timeout: 45_000 }).toBe(0);
    await third.stop();
  });

  it("leaves no worker behind when the launcher is killed while its worker is still starting", async () => {
    const dataDir = tempDir("launch");
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "--port", "0", "--no-open"], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: "ignore",
    });
    const isWorker = (pid: number) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("worker");
      } catch {
        return false;
      }
    };
    // kill the launcher the moment its worker process exists: the worker is then surely still starting
    let worker: number | undefined;
    await expect
      .poll(() => (worker = childrenOf(child.pid ?? -1).find(isWorker)), { timeout: 30_000, interval: 5 })
      .toBeDefined();
    const orphans = () => childrenOf(child.pid ?? -1);
    const left = orphans();
    child.kill("SIGKILL");
    try {
      await expect.poll(() => isAlive(worker ?? -1), { timeout: 45_000 }).toBe(false);
    } finally {
      for (const pid of [...left, ...orphans()].filter(isAlive)) process.kill(pid, "SIGKILL"); // the private Redis, if it got that far (and a lingering worker)
    }
  });

  it("refuses requests without a valid token, with a foreign Host or Origin, and viewer mutations", async () => {
    const app = await start(tempDir("launch"));
    // ok once its worker is online (until then health says no worker is online)
    await expect.poll(async () => (await fetch(`${app.base}/api/health`)).status, { timeout: 60_000 }).toBe(200);
    const health = await fetch(`${app.base}/api/health`);
    expect(await health.json()).toMatchObject({ status: "ok", problems: [] });

    expect((await fetch(`${app.base}/projects`)).status).toBe(401);
    expect((await trpc(app, "projects.list")).status).toBe(401);
    expect((await trpc(app, "projects.list", { token: "a_wrongwrongwrongwrongwrongwrongwrong" })).status).toBe(401);
    expect((await fetch(`${app.base}/?token=a_wrong`, { redirect: "manual" })).status).toBe(401);

    const login = await fetch(`${app.base}/projects?token=${app.token}`, { redirect: "manual" });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/projects");
    const session = /invariant_session=(s_[\w-]+); Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict/.exec(
      login.headers.get("set-cookie") ?? "",
    )?.[1];
    expect(session).toBeDefined();
    expect((await fetch(`${app.base}/projects`, { headers: { cookie: `invariant_session=${session}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${app.base}/projects`, { headers: { cookie: `invariant_token=${app.token}` } })).status).toBe(
      401,
    );

    // DNS rebinding: a foreign Host is refused even with the token
    const rebound = spawnSync(
      "curl",
      [
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-H",
        "Host: attacker.example",
        "-H",
        `Authorization: Bearer ${app.token}`,
        `${app.base}/api/trpc/projects.list`,
      ],
      { encoding: "utf8" },
    );
    expect(rebound.stdout).toBe("421");
    // cross-site mutation is refused even with the token
    const foreign = await trpc(app, "projects.add", {
      token: app.token,
      body: { hostPath: tempDir("x") },
      headers: { origin: "http://attacker.example" },
    });
    expect(foreign.status).toBe(403);

    // viewers read, never write; a revoked link stops working
    const created = (await (
      await trpc(app, "system.createViewerLink", { token: app.token, body: { label: "Dana" } })
    ).json()) as { result: { data: { url: string; link: { id: string } } } };
    const viewerToken = new URL(created.result.data.url).searchParams.get("token") ?? "";
    expect((await trpc(app, "projects.list", { token: viewerToken })).status).toBe(200);
    const mutation = await trpc(app, "projects.add", { token: viewerToken, body: { hostPath: tempDir("viewer") } });
    expect(mutation.status).toBe(403);
    expect(((await mutation.json()) as { error: { data: { code: string } } }).error.data.code).toBe("FORBIDDEN");
    const list = (await (await trpc(app, "projects.list", { token: app.token })).json()) as {
      result: { data: unknown[] };
    };
    expect(list.result.data).toEqual([]);

    const viewerSocket = await socket(app, { authorization: `Bearer ${viewerToken}` });
    expect(viewerSocket.connected).toBe(true);
    const dropped = new Promise<string>((resolve) => viewerSocket.socket.on("disconnect", (reason) => resolve(reason)));
    expect(
      (await trpc(app, "system.revokeViewerLink", { token: app.token, body: { id: created.result.data.link.id } }))
        .status,
    ).toBe(200);
    expect(await dropped).toBe("io server disconnect");
    expect((await trpc(app, "projects.list", { token: viewerToken })).status).toBe(401);

    // socket.io: token required, foreign origin refused
    const admin = await socket(app, { cookie: `invariant_session=${session}` });
    expect(admin.connected).toBe(true);
    admin.socket.disconnect();
    const anonymous = await socket(app, {});
    expect(anonymous.connected).toBe(false);
    expect(anonymous.error).toMatch(/unauthorized/);
    const crossSite = await socket(app, { cookie: `invariant_session=${session}`, origin: "http://attacker.example" });
    expect(crossSite.connected).toBe(false);
    await app.stop();
  });

  it("doctor --json prints machine-readable checks and exits 1 when something required is missing", () => {
    const ok = spawnSync(process.execPath, [BIN, "doctor", "--json", "--data-dir", tempDir("doctor")], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: "utf8",
    });
    expect(ok.status, ok.stderr).toBe(0);
    const report = JSON.parse(ok.stdout) as {
      ok: boolean;
      checks: { id: string; status: string; fix: string | null }[];
    };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.id)).toEqual([
      "node",
      "docker",
      "redis",
      "disk",
      "codex",
      "claude-code",
      "gemini-cli",
      "certificates",
    ]);
    const bad = spawnSync(
      process.execPath,
      [BIN, "doctor", "--json", "--redis-url", "unix:///nonexistent/redis.sock"],
      { cwd: ROOT, env: cleanEnv(), encoding: "utf8" },
    );
    expect(bad.status).toBe(1);
    const badReport = JSON.parse(bad.stdout) as typeof report;
    expect(badReport.checks.find((c) => c.id === "redis")).toMatchObject({
      status: "fail",
      fix: expect.any(String) as unknown,
    });
    const human = spawnSync(process.execPath, [BIN, "doctor", "--data-dir", tempDir("doctor")], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: "utf8",
    });
    expect(human.stdout).toContain("All required checks passed.");
  });

  it("explains a bad flag and a port in use", async () => {
    const usage = spawnSync(process.execPath, [BIN, "--port", "nope"], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: "utf8",
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("--port must be a port number");
    const app = await start(tempDir("launch"));
    const port = new URL(app.base).port;
    const clash = spawnSync(process.execPath, [BIN, "--data-dir", tempDir("launch"), "--port", port, "--no-open"], {
      cwd: ROOT,
      env: cleanEnv(),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(clash.status).toBe(1);
    expect(clash.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    await app.stop();
  });
});
