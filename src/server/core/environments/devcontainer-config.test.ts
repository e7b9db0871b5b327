import { describe, expect, it } from "vitest";
import { DevcontainerRefusal, MAX_DEVCONTAINER_BYTES, parseDevcontainer } from "./devcontainer-config";
import { baseImagesOf } from "./devcontainer-dockerfile";
import { lifecycleScript } from "./devcontainer-lifecycle";

const FILE = ".devcontainer/devcontainer.json";

function problemsOf(text: string): string[] {
  try {
    parseDevcontainer({ file: FILE, text });
  } catch (error) {
    if (error instanceof DevcontainerRefusal) return error.problems;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parseDevcontainer", () => {
  it("reads JSONC: comments and trailing commas, a Dockerfile build relative to its folder", () => {
    const config = parseDevcontainer({
      file: FILE,
      text: `{
        // the build
        "build": { "dockerfile": "Dockerfile", "context": "..", "args": { "VARIANT": "1", }, },
        /* env */ "containerEnv": { "GREETING": "hello" },
        "remoteUser": "node",
        "postCreateCommand": "echo made > /opt/made",
      }`,
    });
    expect(config.source).toEqual({
      kind: "dockerfile",
      dockerfile: ".devcontainer/Dockerfile",
      context: "",
      args: { VARIANT: "1" },
      target: null,
    });
    expect(config.containerEnv).toEqual({ GREETING: "hello" });
    expect(config.remoteUser).toBe("node");
    expect(config.commands).toEqual([{ key: "postCreateCommand", script: "echo made > /opt/made" }]);
  });

  it("names the line and column of a parse error", () => {
    const problems = problemsOf('{\n  "image": "x"\n  "remoteUser": "y"\n}');
    expect(problems[0]).toMatch(/CommaExpected at line 3:3/);
  });

  it("refuses features naming each feature id, and the keys that would widen the container", () => {
    const problems = problemsOf(
      JSON.stringify({
        image: "invariant-base:bookworm",
        features: { "ghcr.io/devcontainers/features/node:1": {}, "ghcr.io/x/y:2": {} },
        runArgs: ["--privileged"],
        privileged: true,
        capAdd: ["SYS_ADMIN"],
        securityOpt: ["seccomp=unconfined"],
        mounts: ["source=/,target=/host,type=bind"],
        dockerComposeFile: "compose.yml",
      }),
    );
    const text = problems.join("\n");
    expect(text).toContain('"features" (ghcr.io/devcontainers/features/node:1, ghcr.io/x/y:2) is not supported');
    for (const key of ["runArgs", "privileged", "capAdd", "securityOpt", "mounts", "dockerComposeFile"])
      expect(text).toContain(`"${key}" is not supported`);
  });

  it("refuses unknown keys by name, and a build that reads a registry cache", () => {
    const text = problemsOf(JSON.stringify({ build: { dockerfile: "D", cacheFrom: "ghcr.io/x" }, surprise: 1 })).join(
      "\n",
    );
    expect(text).toContain('"surprise" is not supported by invariant-web');
    expect(text).toContain('"build.cacheFrom" is not supported');
  });

  it("ignores initializeCommand loudly (it would run on the host) and keeps it out of the commands", () => {
    const config = parseDevcontainer({
      file: FILE,
      text: JSON.stringify({
        image: "img",
        initializeCommand: "touch /tmp/host-marker",
        onCreateCommand: ["echo", "a b"],
      }),
    });
    expect(config.ignored.map((i) => i.key)).toEqual(["initializeCommand"]);
    expect(config.ignored[0]?.reason).toMatch(/never runs a repository's command on the host/);
    expect(config.commands).toEqual([{ key: "onCreateCommand", script: "echo 'a b'" }]);
  });

  it("refuses ${localEnv:…} substitutions, which would copy the host's environment into the image", () => {
    const text = problemsOf(JSON.stringify({ image: "img", containerEnv: { KEY: "${localEnv:OPENAI_API_KEY}" } })).join(
      "\n",
    );
    expect(text).toMatch(/"containerEnv.KEY": containerEnv values cannot use/);
    expect(problemsOf(JSON.stringify({ image: "img", containerEnv: { OPENAI_API_KEY: "sk-x" } })).join()).toMatch(
      /containerEnv cannot set GW_TOKEN, OPENAI_API_KEY/,
    );
  });

  it("refuses both or neither of image and build, bad names, huge and deeply nested files", () => {
    expect(problemsOf("{}").join()).toMatch(/either "image".*or "build.dockerfile"/);
    expect(problemsOf(JSON.stringify({ image: "a", build: { dockerfile: "D" } })).join()).toMatch(/not both/);
    expect(problemsOf(JSON.stringify({ image: "a", containerEnv: { "BAD-NAME": "x" } })).join()).toMatch(
      /containerEnv names must be/,
    );
    expect(problemsOf(JSON.stringify({ build: { dockerfile: "/etc/passwd" } })).join()).toMatch(/relative/);
    expect(problemsOf(`{"image":"a","name":"${"x".repeat(MAX_DEVCONTAINER_BYTES)}"}`).join()).toMatch(/larger than/);
    expect(problemsOf(`{"image":"a","customizations":${"[".repeat(5000)}${"]".repeat(5000)}}`).join()).toMatch(
      /deeper than 16/,
    );
    expect(problemsOf("[1]").join()).toMatch(/one JSON object/);
  });
});

describe("baseImagesOf", () => {
  it("lists the FROM images that must be on the engine, with ARG defaults and build args, not stages or scratch", () => {
    const text = [
      "# syntax=docker/dockerfile:1",
      "ARG BASE=invariant-base:bookworm",
      "ARG TOOL",
      "FROM --platform=linux/amd64 ${BASE} AS build",
      "RUN echo \\",
      "  done",
      "FROM build",
      "FROM scratch",
      "FROM other:${TOOL}",
    ].join("\n");
    expect(baseImagesOf({ text, args: { TOOL: "1" } })).toEqual({
      images: ["invariant-base:bookworm", "other:1"],
      problems: [],
    });
    expect(baseImagesOf({ text, args: {} }).problems[0]).toMatch(/FROM other:\$\{TOOL\} names no image/);
    expect(baseImagesOf({ text: "RUN true", args: {} }).problems).toEqual(["the Dockerfile has no FROM line"]);
  });

  it("counts COPY --from= images (not stages) and refuses an ADD that the engine would download", () => {
    const text =
      "FROM base:1 AS tools\nFROM base:1\nCOPY --from=tools /a /a\nCOPY --from=elsewhere:2 /b /b\nCOPY --from=0 /c /c\nADD https://example.invalid/x.tgz /x\n";
    const found = baseImagesOf({ text, args: {} });
    expect(found.images).toEqual(["base:1", "elsewhere:2"]);
    expect(found.problems).toEqual([
      '"ADD https://example.invalid/x.tgz /x" downloads from the network, and the build is offline: COPY the file into the project instead',
    ]);
  });
});

describe("lifecycleScript", () => {
  it("runs an argv array without shell expansion and named commands in order, stopping at a failure", () => {
    expect(lifecycleScript(["printf", "%s", "$HOME; rm x"])).toBe("printf %s '$HOME; rm x'");
    expect(lifecycleScript({ first: "echo 1", second: ["echo", "2"] })).toBe(
      "echo '[first]'\n(\necho 1\n) || exit $?\necho '[second]'\n(\necho 2\n) || exit $?",
    );
  });
});
