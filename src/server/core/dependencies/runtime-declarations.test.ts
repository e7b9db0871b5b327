import { describe, expect, it } from "vitest";
import { declaredRuntimes, localTarballsOf, nodeRange, packageManagerOf } from "./runtime-declarations";
import { detectDependencyStep } from "./dependency-detection";

const pkg = (object: unknown) => JSON.stringify(object);

describe("declared runtimes", () => {
  it("combines .nvmrc with package.json engines.node into one range, naming both sources", () => {
    expect(declaredRuntimes({ ".nvmrc": "22\n", "package.json": pkg({ engines: { node: ">=22.12" } }) })).toEqual([
      { runtime: "node", range: "22 >=22.12", source: ".nvmrc and package.json engines.node" },
    ]);
  });

  it("reads .node-version, .tool-versions and volta in that order after .nvmrc", () => {
    expect(declaredRuntimes({ ".node-version": "v20.11.1" })[0]).toMatchObject({ range: "20.11.1" });
    expect(declaredRuntimes({ ".tool-versions": "python 3.12.1\nnodejs 22.12.0 # pinned\n" })).toEqual([
      { runtime: "node", range: "22.12.0", source: ".tool-versions" },
      { runtime: "python", range: "3.12.1", source: ".tool-versions" },
    ]);
    expect(declaredRuntimes({ "package.json": pkg({ volta: { node: "20.10.0" } }) })[0]).toMatchObject({
      range: "20.10.0",
      source: "package.json volta.node",
    });
    expect(declaredRuntimes({ ".nvmrc": "24", ".node-version": "20" })[0]).toMatchObject({ source: ".nvmrc" });
  });

  it("maps nvm's LTS names, ignores 'node'/'latest' and anything a shell could read", () => {
    expect(nodeRange("lts/iron")).toBe("20");
    expect(nodeRange("lts/Jod")).toBe("22");
    expect(nodeRange("lts/*")).toBe("24");
    expect(nodeRange("node")).toBeNull();
    expect(nodeRange("22; rm -rf /")).toBeNull();
    expect(nodeRange("$(curl evil)")).toBeNull();
    expect(nodeRange(">=20   <23")).toBe(">=20 <23");
    expect(declaredRuntimes({ ".nvmrc": "lts/unknown-name" })).toEqual([]);
  });

  it("keeps an engines range with alternatives as the only constraint when a version is pinned too", () => {
    expect(declaredRuntimes({ ".nvmrc": "22", "package.json": pkg({ engines: { node: "^20 || ^22" } }) })[0]).toEqual({
      runtime: "node",
      range: "22",
      source: ".nvmrc",
    });
    expect(declaredRuntimes({ "package.json": pkg({ engines: { node: "^20 || ^22" } }) })[0]?.range).toBe("^20 || ^22");
  });

  it("reads Python from .python-version or requires-python, and Go from go.mod's toolchain or go line", () => {
    expect(declaredRuntimes({ ".python-version": "3.12\n" })).toEqual([
      { runtime: "python", range: "3.12", source: ".python-version" },
    ]);
    expect(declaredRuntimes({ "pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.10"\n' })).toEqual([
      { runtime: "python", range: ">=3.10", source: "pyproject.toml requires-python" },
    ]);
    expect(declaredRuntimes({ "go.mod": "module x\n\ngo 1.22.3\n" })).toEqual([
      { runtime: "go", range: "1.22.3", source: "go.mod" },
    ]);
    expect(declaredRuntimes({ "go.mod": "module x\ngo 1.21\ntoolchain go1.22.1\n" })[0]).toMatchObject({
      range: "1.22.1",
      source: "go.mod toolchain",
    });
  });

  it("survives broken manifests: invalid JSON, arrays, numbers", () => {
    expect(declaredRuntimes({ "package.json": "{ not json" })).toEqual([]);
    expect(declaredRuntimes({ "package.json": "[1]" })).toEqual([]);
    expect(declaredRuntimes({ "package.json": pkg({ engines: { node: 22 } }) })).toEqual([]);
  });
});

describe("packageManager pins the pnpm or yarn version of the detected step", () => {
  it("parses name@version with an optional hash", () => {
    expect(packageManagerOf(pkg({ packageManager: "pnpm@9.15.0+sha512.abc" }))).toEqual({
      name: "pnpm",
      version: "9.15.0",
    });
    expect(packageManagerOf(pkg({ packageManager: "pnpm@latest" }))).toBeNull();
  });

  it("installs that pnpm, yarn 1 by npm, yarn 2+ through corepack", () => {
    const files = ["package.json", "pnpm-lock.yaml"];
    expect(detectDependencyStep(files, { packageManager: { name: "pnpm", version: "8.15.4" } })?.command).toBe(
      "npm install -g pnpm@8.15.4 && pnpm install --frozen-lockfile",
    );
    expect(
      detectDependencyStep(["package.json", "yarn.lock"], { packageManager: { name: "yarn", version: "4.5.0" } })
        ?.command,
    ).toBe("npm install -g corepack && corepack enable && yarn install --immutable");
    expect(detectDependencyStep(["package.json", "yarn.lock"])?.command).toBe(
      "npm install -g yarn@1 && yarn install --frozen-lockfile",
    );
  });

  it("adds the files that declare a runtime to the detected step's manifests", () => {
    expect(detectDependencyStep(["package.json", ".nvmrc", ".tool-versions"])?.manifests).toEqual([
      "package.json",
      ".nvmrc",
      ".tool-versions",
    ]);
    expect(detectDependencyStep(["requirements.txt", ".python-version"])?.manifests).toEqual([
      "requirements.txt",
      ".python-version",
    ]);
  });
});

describe("tarballs package.json installs from the project", () => {
  it("join the detected manifests; paths leaving the project and registry specs do not", () => {
    const text = pkg({
      dependencies: { a: "file:vendor/a-1.0.0.tgz", b: "^1.0.0", c: "file:../outside.tgz" },
      devDependencies: { d: "file:./tools/d.tar.gz", e: "file:vendor/e" },
    });
    expect(localTarballsOf(text)).toEqual(["tools/d.tar.gz", "vendor/a-1.0.0.tgz"]);
    expect(detectDependencyStep(["package.json"], { localTarballs: localTarballsOf(text) })?.manifests).toEqual([
      "package.json",
      "tools/d.tar.gz",
      "vendor/a-1.0.0.tgz",
    ]);
  });
});
