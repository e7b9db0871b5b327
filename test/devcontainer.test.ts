import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { EnvironmentVersionView } from "../src/server/web/environments/environments.queries";
import { packBuildContext, readDevcontainer } from "../src/server/core/environments/devcontainer-source";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import { createDockerRuntime, redisUrlFor, tempDir, waitForStudy } from "./support/study-harness";

/**
 * A project whose environment comes from its .devcontainer/devcontainer.json (JSONC): a Dockerfile built
 * offline FROM the test base image, containerEnv, onCreateCommand and postCreateCommand. Its trials (the
 * agent's container and the evaluation's) and its terminal sessions see all of it; what cannot work here
 * (features, a FROM or image not on the engine, a context outside the project) is refused by name, and
 * initializeCommand never runs on the host.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 38);
const BASE_IMAGE = "invariant-base:bookworm";
const runtime = createDockerRuntime();
let stack: StudyStack;
const projects: string[] = [];

beforeAll(async () => {
  stack = await startStudyStack({ name: "devcontainer", redisUrl: REDIS_URL, runtime, scripts: {}, concurrency: 2 });
}, 300_000);

afterAll(async () => {
  for (const session of await stack.web.services.sessions.list({}))
    await stack.web.services.sessions.finish(session.id).catch(() => undefined);
  await stack.close();
  for (const id of projects) {
    const images = spawnSync("docker", ["images", "-aq", "--filter", `label=invariant.project=${id}`], {
      encoding: "utf8",
    }).stdout.split("\n");
    const tags = [`invariant-env/${id.toLowerCase()}`, `invariant-trial/${id.toLowerCase()}`].flatMap((repo) =>
      spawnSync("docker", ["images", "-q", repo], { encoding: "utf8" }).stdout.split("\n"),
    );
    const all = [...new Set([...tags, ...images].filter(Boolean))];
    if (all.length > 0) spawnSync("docker", ["rmi", "-f", ...all], { stdio: "ignore" });
  }
});

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text, { mode: 0o755 });
  }
}

async function addProject(name: string, files: Record<string, string>): Promise<{ id: string; dir: string }> {
  const dir = path.join(tempDir(name), name);
  write(dir, files);
  const project = await stack.web.services.projects.add({ hostPath: dir, name });
  await stack.web.services.projects.update({
    id: project.id,
    settings: { cpus: 1, memoryBytes: 1024 ** 3, pids: 512 },
  });
  projects.push(project.id);
  return { id: project.id, dir };
}

async function built(projectId: string, versionId: string): Promise<EnvironmentVersionView> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const found = (await stack.web.services.environments.overview(projectId)).versions.find((v) => v.id === versionId);
    if (found && found.status !== "building") return found;
    if (Date.now() > deadline) throw new Error(`version ${versionId} still building`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

const hostMarker = path.join(tempDir("host-marker"), "initialize-ran");

const DOCKERFILE = [
  "# built offline by the engine from the base image",
  `FROM ${BASE_IMAGE}`,
  "ARG MADE_BY=nobody",
  "COPY tools/hello.sh /usr/local/bin/hello",
  'RUN mkdir -p /opt/devcontainer && echo "$MADE_BY" > /opt/devcontainer/built',
  "",
].join("\n");

const DEVCONTAINER = `{
  // JSONC: comments and trailing commas are fine
  "name": "fixture",
  "build": { "dockerfile": "Dockerfile", "context": "..", "args": { "MADE_BY": "dockerfile", }, },
  /* seen by every session and trial */
  "containerEnv": { "GREETING": "hello-from-devcontainer", },
  "remoteUser": "root",
  "initializeCommand": "touch ${hostMarker}",
  "onCreateCommand": ["sh", "-c", "echo on-create > /opt/devcontainer/on-create"],
  "postCreateCommand": "echo \\"post-create $GREETING\\" > /opt/devcontainer/post-create",
}`;

const CHECKS = `const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
test("the evaluation sees containerEnv and what the Dockerfile and postCreateCommand made", () => {
  assert.strictEqual(process.env.GREETING, "hello-from-devcontainer");
  assert.strictEqual(fs.readFileSync("/opt/devcontainer/built", "utf8"), "dockerfile\\n");
  assert.strictEqual(fs.readFileSync("/opt/devcontainer/post-create", "utf8"), "post-create hello-from-devcontainer\\n");
});
test("the agent's container saw them too", () => {
  assert.strictEqual(fs.readFileSync("seen.txt", "utf8"), "hello-from-devcontainer on-create hi\\n");
});
`;

describe("environments from devcontainer.json", () => {
  let project: { id: string; dir: string };
  let version: EnvironmentVersionView;

  it("builds the Dockerfile offline, runs the lifecycle commands, records what it used; initializeCommand never runs", async () => {
    project = await addProject("devcontainer-app", {
      ".devcontainer/devcontainer.json": DEVCONTAINER,
      ".devcontainer/Dockerfile": DOCKERFILE,
      "tools/hello.sh": "#!/bin/sh\necho hi\n",
      "check.test.js": CHECKS,
    });
    const status = await stack.web.services.environments.devcontainerStatus(project.id);
    expect(status).toMatchObject({ state: "usable", file: ".devcontainer/devcontainer.json" });

    const building = await stack.web.services.environments.prepareFromDevcontainer(project.id);
    expect(building.origin).toBe("devcontainer");
    version = await built(project.id, building.id);
    const log = await stack.web.services.environments.log(version.id);
    expect(version.status, `${version.error}\n${log}`).toBe("ready");
    expect(version.active).toBe(true);
    expect(log).toContain(`FROM ${BASE_IMAGE}`);
    expect(log).toContain("[devcontainer] onCreateCommand");
    expect(log).toContain("[devcontainer] postCreateCommand");
    expect(log).toContain('[devcontainer] ignored "initializeCommand"');
    expect(fs.existsSync(hostMarker)).toBe(false);
    expect(version.devcontainer).toEqual({
      file: ".devcontainer/devcontainer.json",
      image: null,
      dockerfile: {
        path: ".devcontainer/Dockerfile",
        sha256: createHash("sha256").update(DOCKERFILE).digest("hex"),
        context: ".",
      },
      buildArgs: ["MADE_BY"],
      containerEnv: ["GREETING"],
      remoteUser: "root",
      commands: [
        { key: "onCreateCommand", script: "sh -c 'echo on-create > /opt/devcontainer/on-create'" },
        { key: "postCreateCommand", script: 'echo "post-create $GREETING" > /opt/devcontainer/post-create' },
      ],
      ignored: [expect.objectContaining({ key: "initializeCommand" })],
    });
    // the context tar handed to the worker is gone once built
    expect(fs.readdirSync(path.join(stack.dataDir, "devcontainer-contexts"))).toEqual([]);
  }, 300_000);

  it("gives its trials (agent and evaluation containers) containerEnv and what the commands made", async () => {
    const created = await stack.web.services.studies.create(
      {
        projectId: project.id,
        title: "Devcontainer",
        taskPrompt: "Write what you see.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "check.test.js" }],
        concurrency: 1,
        configurations: [
          {
            harness: "command",
            model: "",
            reasoningEffort: "low",
            command: `printf '%s %s %s\\n' "$GREETING" "$(cat /opt/devcontainer/on-create)" "$(hello)" > seen.txt`,
            repeats: 1,
          },
        ],
      },
      "admin",
    );
    const study = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
      timeoutMs: 240_000,
    });
    expect(study.refusal).toBeNull();
    expect(study.environment.versionId).toBe(version.id);
    expect(study.baseline).toMatchObject({ passed: 1, total: 2 });
    expect(study.trials[0]?.verdict, JSON.stringify(study.trials[0])).toMatchObject({ passed: 2, total: 2 });
  }, 300_000);

  it("gives its terminal sessions containerEnv and what the commands made", async () => {
    const session = await stack.web.services.sessions.start({ projectId: project.id, kind: "shell", mode: "private" });
    await expect
      .poll(async () => (await stack.web.services.sessions.get(session.id)).state, { timeout: 60_000 })
      .toBe("running");
    const [container = ""] = execFileSync("docker", ["ps", "-q", "--filter", `label=invariant.session=${session.id}`], {
      encoding: "utf8",
    }).split("\n");
    const seen = await runtime.exec(container, [
      "sh",
      "-c",
      'printf "%s|" "$GREETING"; cat /opt/devcontainer/post-create /opt/devcontainer/built; hello',
    ]);
    expect(seen).toEqual({
      exitCode: 0,
      output: "hello-from-devcontainer|post-create hello-from-devcontainer\ndockerfile\nhi\n",
    });
    await stack.web.services.sessions.finish(session.id);
  }, 120_000);

  it("refuses features by name, a context outside the project (.. or a symlink), and names a parse error's line", async () => {
    const other = await addProject("devcontainer-refused", {
      ".devcontainer/devcontainer.json": JSON.stringify({
        image: BASE_IMAGE,
        features: { "ghcr.io/devcontainers/features/node:1": {} },
      }),
    });
    const refuse = () => stack.web.services.environments.prepareFromDevcontainer(other.id);
    await expect(refuse()).rejects.toThrow(/"features" \(ghcr\.io\/devcontainers\/features\/node:1\) is not supported/);
    expect(await stack.web.services.environments.devcontainerStatus(other.id)).toMatchObject({ state: "refused" });

    const devcontainer = path.join(other.dir, ".devcontainer", "devcontainer.json");
    fs.writeFileSync(devcontainer, JSON.stringify({ build: { dockerfile: "Dockerfile", context: "../.." } }));
    fs.writeFileSync(path.join(other.dir, ".devcontainer", "Dockerfile"), `FROM ${BASE_IMAGE}\n`);
    await expect(refuse()).rejects.toThrow(/build.context \("\.\." in the project\) is outside the project/);

    fs.symlinkSync(path.dirname(other.dir), path.join(other.dir, ".devcontainer", "up"));
    fs.writeFileSync(devcontainer, JSON.stringify({ build: { dockerfile: "Dockerfile", context: "up" } }));
    await expect(refuse()).rejects.toThrow(
      /build.context \("\.devcontainer\/up" in the project\) is outside the project/,
    );

    fs.writeFileSync(devcontainer, '{\n  "image": "x"\n  "remoteUser": "y"\n}');
    await expect(refuse()).rejects.toThrow(/CommaExpected at line 3:3/);
    expect((await stack.web.services.environments.overview(other.id)).versions).toEqual([]);
  });

  it("fails a version whose FROM or image is not on the engine (naming it, nothing pulled) or whose command fails", async () => {
    const other = await addProject("devcontainer-missing", {
      ".devcontainer/devcontainer.json": JSON.stringify({ build: { dockerfile: "Dockerfile" } }),
      ".devcontainer/Dockerfile": "FROM registry.invalid/nowhere/missing:1\n",
    });
    const attempt = async () =>
      built(other.id, (await stack.web.services.environments.prepareFromDevcontainer(other.id)).id);
    const missingFrom = await attempt();
    expect(missingFrom.status).toBe("failed");
    expect(missingFrom.error).toMatch(
      /builds FROM registry\.invalid\/nowhere\/missing:1, which is not on this worker's Docker engine/,
    );
    expect(missingFrom.error).toMatch(/docker load it first, or start from the base image invariant-base:bookworm/);

    const devcontainer = path.join(other.dir, ".devcontainer", "devcontainer.json");
    fs.writeFileSync(devcontainer, JSON.stringify({ image: "mcr.microsoft.com/devcontainers/base:bookworm" }));
    const missingImage = await attempt();
    expect(missingImage.error).toMatch(
      /The image mcr\.microsoft\.com\/devcontainers\/base:bookworm \(\.devcontainer\/devcontainer\.json "image"\) is not on this worker's Docker engine/,
    );

    fs.writeFileSync(devcontainer, JSON.stringify({ image: BASE_IMAGE, postCreateCommand: "echo failing; exit 3" }));
    const failing = await attempt();
    expect(failing.status).toBe("failed");
    expect(failing.error).toContain("exited with code 3");
    expect(await stack.web.services.environments.log(failing.id)).toContain(
      "[devcontainer] postCreateCommand failed with exit code 3",
    );

    // a Dockerfile build whose command fails leaves no image behind
    fs.writeFileSync(
      devcontainer,
      JSON.stringify({ build: { dockerfile: "Dockerfile" }, postCreateCommand: "exit 4" }),
    );
    fs.writeFileSync(path.join(other.dir, ".devcontainer", "Dockerfile"), `FROM ${BASE_IMAGE}\nRUN touch /built\n`);
    const builtThenFailed = await attempt();
    expect(builtThenFailed.error).toContain("exited with code 4");
    expect(await stack.web.services.environments.log(builtThenFailed.id)).toContain("RUN touch /built");
    const left = spawnSync(
      "docker",
      ["images", "-aq", "--filter", `label=invariant.environment=${builtThenFailed.id}`],
      {
        encoding: "utf8",
      },
    ).stdout.trim();
    expect(left).toBe("");
  }, 300_000);

  it("stops a Dockerfile build that never ends at the time limit; the engine removes its container", async () => {
    const dir = path.join(tempDir("devcontainer-endless"), "endless");
    write(dir, {
      ".devcontainer.json": JSON.stringify({ build: { dockerfile: "Dockerfile" } }),
      Dockerfile: `FROM ${BASE_IMAGE}\nLABEL invariant.test=devcontainer-endless\nRUN sleep 600\n`,
    });
    const found = await readDevcontainer(dir);
    const tar = await packBuildContext({ projectDir: dir, found: found!, intoDir: tempDir("endless-context") });
    const started = Date.now();
    const output: string[] = [];
    const building = runtime.buildImage({
      context: fs.createReadStream(tar),
      dockerfile: ".invariant-devcontainer.Dockerfile",
      buildArgs: {},
      target: null,
      labels: {},
      timeoutMs: 6000,
      onOutput: (chunk) => output.push(chunk),
    });
    const failed = expect(building).rejects.toThrow(/docker build stopped after 6 s \(the prepare time limit\)/);
    const stepContainers = () =>
      spawnSync("docker", ["ps", "-q", "--filter", "label=invariant.test=devcontainer-endless"], {
        encoding: "utf8",
      }).stdout.trim();
    // the RUN step's container exists while it sleeps (so its disappearance below means something)
    await expect.poll(stepContainers, { timeout: 5000, interval: 200 }).not.toBe("");
    await failed;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(output.join("")).toContain("RUN sleep 600");
    // the engine cancels the step: no container of it keeps running
    await expect.poll(stepContainers, { timeout: 30_000 }).toBe("");
  }, 60_000);
});
