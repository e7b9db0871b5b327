import fs from "node:fs";
import path from "node:path";
import type { ContainerSpec } from "./container-spec";

/**
 * The host's CA certificates, handed to containers that have network (dependency steps, prepare
 * commands, network mode `internet`). Hosts behind a TLS-inspecting proxy (many company networks)
 * trust the proxy's CA; without it a container's `npm`, `pip` or `git` fails with
 * SELF_SIGNED_CERT_IN_CHAIN. The bundle is mounted read-only and every common client is pointed at it.
 */
export const CONTAINER_CA_PATH = "/etc/invariant/host-ca.crt";

/** Where Linux distributions keep the system bundle (system CAs plus the ones the host added). */
export const HOST_CA_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt", // Debian, Ubuntu, Alpine, Arch
  "/etc/pki/tls/certs/ca-bundle.crt", // Fedora, RHEL, CentOS
  "/etc/ssl/ca-bundle.pem", // openSUSE
  "/etc/ssl/cert.pem", // macOS, Alpine
] as const;

/** Where hosts put the CAs they add to the system bundle. */
export const LOCAL_CA_DIRS = ["/usr/local/share/ca-certificates", "/etc/pki/ca-trust/source/anchors"] as const;

/** The variables clients read: OpenSSL/curl/git, Node.js, Python requests and pip, npm. */
export function hostCaEnv(): Record<string, string> {
  return {
    SSL_CERT_FILE: CONTAINER_CA_PATH,
    CURL_CA_BUNDLE: CONTAINER_CA_PATH,
    NODE_EXTRA_CA_CERTS: CONTAINER_CA_PATH,
    REQUESTS_CA_BUNDLE: CONTAINER_CA_PATH,
    PIP_CERT: CONTAINER_CA_PATH,
    GIT_SSL_CAINFO: CONTAINER_CA_PATH,
    NPM_CONFIG_CAFILE: CONTAINER_CA_PATH,
  };
}

/** `off`, `auto` (the first system bundle that exists) or a bundle's path; the result is a real file, or null. */
export function resolveHostCaBundle(options: {
  setting: string;
  exists?: (file: string) => boolean;
  candidates?: readonly string[];
}): string | null {
  const exists = options.exists ?? ((file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false);
  if (options.setting === "off") return null;
  if (options.setting !== "auto") {
    if (!exists(options.setting))
      throw new Error(
        `INVARIANT_HOST_CA names ${options.setting}, which is not a file. Point it at a PEM bundle, or set it to "auto" or "off".`,
      );
    return resolveReal(options.setting);
  }
  const found = (options.candidates ?? HOST_CA_BUNDLES).find(exists);
  return found ? resolveReal(found) : null;
}

/** A bind mount of a symlink would mount whatever the link names at container start: resolve it now. */
function resolveReal(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** The spec with the host bundle mounted read-only and the clients pointed at it, when the container has network. */
export function withHostCa(spec: ContainerSpec, bundle: string | null): ContainerSpec {
  if (!bundle || spec.network === "none") return spec;
  return {
    ...spec,
    env: { ...hostCaEnv(), ...spec.env },
    mounts: [...(spec.mounts ?? []), { hostPath: bundle, containerPath: CONTAINER_CA_PATH, readOnly: true }],
  };
}

/** The CAs the host added to its system bundle (files in the local CA folders), for the doctor. */
export function localCaFiles(dirs: readonly string[] = LOCAL_CA_DIRS): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) if (/\.(crt|pem)$/.test(name)) found.push(path.join(dir, name));
  }
  return found;
}

/** How many certificates a PEM bundle holds. */
export function countCertificates(bundle: string): number {
  try {
    return (fs.readFileSync(bundle, "latin1").match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
  } catch {
    return 0;
  }
}
