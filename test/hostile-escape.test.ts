import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarProject, createDockerRuntime, FAKE_KEY, tempDir } from "./support/study-harness";
import { escapeScript, expectEscapesRefused } from "./support/escape-suite";
import { startSessionStack, type SessionStack } from "./support/session-stack";
import { workspaceFiles } from "../src/server/core/workspaces/workspace-files";
import { readWorkspace } from "../src/server/core/workspaces/workspace-store";
import { startWorker } from "../worker/main";

/**
 * Issue 23 point 2 as a new user meets it: agents install their tools inside a boundary that holds.
 * A project made with the defaults runs its agents and private sessions as root inside the container
 * (package managers' capabilities only), so `apt-get install -y jq` works in a session and in a
 * `command` trial, and *Save installed tools* keeps it for the next session; the escape suite
 * (test/support/escape-suite.ts) runs in the same containers and every attempt is refused; what root
 * wrote in a workspace is the host user's afterwards, without its set-uid bit. No setting is changed: in
 * network mode `none` apt reaches Debian's mirror through the model gateway's package proxy, and nothing else.
 */
const runtime = createDockerRuntime();
const hostMarker = path.join(tempDir("host-only"), "host-marker.txt");
const INSTALL_JQ = "apt-get update -qq >/dev/null && apt-get install -y -qq jq >/dev/null && jq --version";
let stack: SessionStack;

beforeAll(async () => {
  fs.writeFileSync(hostMarker, "only the host has this\n");
  stack = await startSessionStack({ name: "hostile-escape", runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

function containerOf(sessionId: string): string {
  const ids = execFileSync("docker", ["ps", "-q", "--filter", `label=invariant.session=${sessionId}`], {
    encoding: "utf8",
  });
  const [id] = ids.split("\n").filter(Boolean);
  if (!id) throw new Error(`no running container for session ${sessionId}`);
  return id;
}

function inContainer(id: string, script: string): string {
  return execFileSync("docker", ["exec", id, "sh", "-c", script], { encoding: "utf8", maxBuffer: 1 << 24 });
}

describe("a project with the default settings", () => {
  it("runs agents and private sessions as root, in network mode none: its defaults say so", async () => {
    const project = await stack.web.core.services.projects.get(stack.projectId);
    expect(project).toMatchObject({ runAsRoot: true, networkMode: "none" });
  });

  it("a private session installs jq with apt-get, refuses every escape, and saves jq for the next session", async () => {
    const { web, projectId } = stack;
    const services = web.core.services;
    const session = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const terminal = await web.watch(session.id);
    await web.type(session.id, `${INSTALL_JQ} && echo "installed as $(id -u)"`);
    await terminal.waitFor(/^installed as 0$/m, 180_000);
    expect(terminal.text()).toMatch(/^jq-1\.\d/m);

    // the package proxy is no way to the host: a listener on the host's loopback hears nothing through it
    const heard: string[] = [];
    const listener = http.createServer((req, res) => (heard.push(req.url ?? ""), res.end("host secret")));
    const port = await new Promise<number>((resolve) =>
      listener.listen(0, "127.0.0.1", () => resolve((listener.address() as AddressInfo).port)),
    );
    const ask = (url: string, method = "GET") =>
      `node -e 'const r = require("http").request({ host: "127.0.0.1", port: 8787, method: "${method}", path: "${url}", headers: { "proxy-authorization": "Basic " + Buffer.from("run:" + process.env.GW_TOKEN).toString("base64") } }, (s) => console.log("proxy-answer", s.statusCode)); r.on("error", (e) => console.log("proxy-error", e.code)); r.end()'`;
    await web.type(session.id, ask(`http://127.0.0.1:${port}/steal`));
    await terminal.waitFor(/^proxy-answer 403$/m, 30_000);
    await web.type(session.id, ask("http://deb.debian.org/debian/upload", "POST"));
    await terminal.waitFor(/^proxy-answer 405$/m, 30_000);
    listener.close();
    expect(heard).toEqual([]);

    const container = containerOf(session.id);
    expectEscapesRefused(inContainer(container, escapeScript({ hostMarker })), { uid: 0 });
    const info = JSON.parse(execFileSync("docker", ["inspect", container], { encoding: "utf8" })) as {
      HostConfig: { CapAdd: string[] | null; Binds: string[] | null; Privileged: boolean };
      Mounts: { Source: string }[];
    }[];
    expect(info[0]?.HostConfig.Privileged).toBe(false);
    expect(info[0]?.HostConfig.CapAdd ?? []).not.toContain("DAC_READ_SEARCH");
    expect(info[0]?.Mounts.map((mount) => mount.Source)).not.toContain("/var/run/docker.sock");

    const version = await services.sessions.saveInstalledTools(session.id);
    expect(version).toMatchObject({ origin: "session", status: "ready", active: true });
    await services.sessions.finish(session.id);
    const next = await services.sessions.start({ projectId, kind: "shell", mode: "private" });
    const nextTerminal = await web.watch(next.id);
    await web.type(next.id, "jq --version && echo jq-kept");
    await nextTerminal.waitFor(/^jq-kept$/m, 30_000);
    await services.sessions.finish(next.id);
  }, 400_000);

  it("a command trial installs jq as root, refuses every escape, and leaves files that are the host user's", async () => {
    const { web, projectId, dataDir } = stack;
    const services = web.core.services;
    const worker = await startWorker({
      redisUrl: stack.redis.url,
      dataDir,
      concurrency: 2,
      version: "test",
      modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("escape-codex"), upstreamBaseUrl: stack.mock.url },
      log: () => undefined,
    });
    try {
      const escape = escapeScript({ hostMarker });
      const { id } = await services.studies.create(
        {
          projectId,
          title: "Install and escape",
          taskPrompt: "Install jq; try to leave the container.",
          testCommand: "node --test",
          concurrency: 2,
          configurations: [
            {
              harness: "command",
              command: `apt-get update -qq && apt-get install -y -qq jq && jq --version > jq.txt && cp /bin/true setuid-true && chmod 4755 setuid-true`,
              repeats: 1,
            },
            { harness: "command", command: `{ ${escape}\n} > escape.txt 2>&1`, repeats: 1 },
          ],
        },
        "admin",
      );
      await expect.poll(async () => (await services.studies.get(id)).state, { timeout: 300_000 }).toBe("done");
      const study = await services.studies.get(id);
      const [install, attempt] = study.configurations.map((configuration) =>
        study.trials.find((trial) => trial.configurationId === configuration.id),
      );
      expect(install?.outcome, JSON.stringify(install)).toBe("completed");
      expect(attempt?.outcome, JSON.stringify(attempt)).toBe("completed");

      const files = async (workspaceId: string) =>
        workspaceFiles(await readWorkspace({ dataDir, workspaceId: workspaceId || "missing" }));
      const installed = await files(install?.workspaceId ?? "");
      expect((await installed.readFile("jq.txt", 1024)).toString()).toMatch(/^jq-1\.\d/);
      const escaped = (await (await files(attempt?.workspaceId ?? "")).readFile("escape.txt", 1 << 20)).toString();
      expectEscapesRefused(escaped, { uid: 0 });

      // root wrote them; the host user owns them now, and the set-uid bit went with the hand-back
      const workspace = await readWorkspace({ dataDir, workspaceId: install?.workspaceId ?? "" });
      const hostUser = runtimeHostUser();
      for (const name of ["jq.txt", "setuid-true"]) {
        const stat = fs.lstatSync(path.join(workspace.path, name));
        expect(`${stat.uid}:${stat.gid}`).toBe(hostUser);
      }
      expect(fs.statSync(path.join(workspace.path, "setuid-true")).mode & 0o6000).toBe(0);
    } finally {
      await worker.stop("test finished");
    }
  }, 400_000);
});

/** Who the runtime hands files back to here: the worker's own user, or nobody:nogroup for a root worker. */
function runtimeHostUser(): string {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? "65534:65534" : `${uid}:${process.getgid?.() ?? 0}`;
}
