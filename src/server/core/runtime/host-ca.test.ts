import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_IMAGE } from "../../../../test/support/environment-harness";
import { tempDir } from "../../../../test/support/temp";
import { checkCertificates } from "../diagnostics/certificates-check";
import { createDockerRuntime } from "./docker-runtime";
import { CONTAINER_CA_PATH, resolveHostCaBundle, withHostCa } from "./host-ca";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const limits = { cpus: 1, memoryBytes: 256 * 1024 ** 2, swapBytes: 0, pids: 64 };
const created: string[] = [];
const RUN = randomBytes(4).toString("hex");
const runtime = createDockerRuntime({ hostCaBundle: null });

afterAll(async () => {
  for (const id of created) await runtime.removeContainer(id);
});

/** Runs `script` in a container of the base image and returns its output. */
async function run(options: { bundle: string | null; network: "none" | "internet"; script: string }) {
  const withCa = createDockerRuntime({ hostCaBundle: options.bundle });
  const id = await withCa.createContainer({
    image: BASE_IMAGE,
    command: ["/bin/sh", "-c", options.script],
    // a project of this run's own: its internet-mode bridge is named after it
    labels: { project: `host-ca-test-${RUN}`, role: "probe" },
    limits,
    network: options.network,
  });
  created.push(id);
  let output = "";
  const { exitCode } = await withCa.runToExit(id, (chunk) => (output += chunk));
  return { exitCode, output };
}

describe("host CA certificates", () => {
  it("resolves auto to the first bundle that exists, off to nothing, and refuses a missing path", () => {
    const dir = tempDir("host-ca");
    const bundle = path.join(dir, "bundle.pem");
    fs.writeFileSync(bundle, PEM);
    expect(resolveHostCaBundle({ setting: "auto", candidates: [path.join(dir, "missing"), bundle] })).toBe(bundle);
    expect(resolveHostCaBundle({ setting: "auto", candidates: [path.join(dir, "missing")] })).toBeNull();
    expect(resolveHostCaBundle({ setting: "off", candidates: [bundle] })).toBeNull();
    expect(resolveHostCaBundle({ setting: bundle })).toBe(bundle);
    expect(() => resolveHostCaBundle({ setting: path.join(dir, "nope.pem") })).toThrow(/is not a file/);
  });

  it("mounts the bundle read-only with the clients' variables only into containers with network", async () => {
    const dir = tempDir("host-ca");
    const bundle = path.join(dir, "bundle.pem");
    fs.writeFileSync(bundle, PEM);
    const script = `cat ${CONTAINER_CA_PATH}; echo "node=$NODE_EXTRA_CA_CERTS pip=$PIP_CERT git=$GIT_SSL_CAINFO npm=$NPM_CONFIG_CAFILE ssl=$SSL_CERT_FILE requests=$REQUESTS_CA_BUNDLE"; echo x > ${CONTAINER_CA_PATH} || echo read-only`;
    const internet = await run({ bundle, network: "internet", script });
    expect(internet.output).toContain("BEGIN CERTIFICATE");
    for (const name of ["node", "pip", "git", "npm", "ssl", "requests"])
      expect(internet.output).toContain(`${name}=${CONTAINER_CA_PATH}`);
    expect(internet.output).toContain("read-only");
    expect(fs.readFileSync(bundle, "utf8")).toBe(PEM);

    const none = await run({
      bundle,
      network: "none",
      script: `test -e ${CONTAINER_CA_PATH} && echo mounted; echo "node=$NODE_EXTRA_CA_CERTS."`,
    });
    expect(none.output).not.toContain("mounted");
    expect(none.output).toContain("node=.");
  });

  it("keeps a container's own variables over the defaults", () => {
    const spec = withHostCa(
      {
        image: "x",
        command: [],
        labels: { project: "p", role: "probe" },
        limits,
        network: "internet",
        env: { PIP_CERT: "/mine.pem" },
      },
      "/etc/ssl/certs/ca-certificates.crt",
    );
    expect(spec.env?.PIP_CERT).toBe("/mine.pem");
    expect(spec.env?.NODE_EXTRA_CA_CERTS).toBe(CONTAINER_CA_PATH);
  });

  it("doctor: says which bundle containers get and which CAs the host adds; warns when turned off with extra CAs", () => {
    const dir = tempDir("host-ca");
    fs.writeFileSync(path.join(dir, "company-proxy.crt"), PEM);
    const bundle = path.join(dir, "bundle.pem");
    fs.writeFileSync(bundle, PEM + PEM);
    const on = checkCertificates({ setting: bundle, localDirs: [dir] });
    expect(on).toMatchObject({ id: "certificates", status: "ok" });
    expect(on.detail).toContain("2 certificates");
    expect(on.detail).toContain("company-proxy.crt");
    const off = checkCertificates({ setting: "off", localDirs: [dir] });
    expect(off.status).toBe("warn");
    expect(off.fix).toContain("INVARIANT_HOST_CA");
    expect(checkCertificates({ setting: "off", localDirs: [path.join(dir, "none")] }).status).toBe("ok");
    expect(checkCertificates({ setting: path.join(dir, "missing.pem") }).status).toBe("fail");
  });
});
