import path from "node:path";
import { countCertificates, localCaFiles, resolveHostCaBundle } from "../runtime/host-ca";
import type { DoctorCheck } from "./doctor-check";
import { messageOf } from "../../../shared/error-message";

const TITLE = "Host certificates";

/**
 * Whether containers with network trust the host's CA certificates (INVARIANT_HOST_CA), and whether
 * the host adds CAs of its own (a TLS-inspecting proxy, a company CA): then containers need the
 * host's bundle to reach package registries.
 */
export function checkCertificates(options: { setting: string; localDirs?: readonly string[] }): DoctorCheck {
  const local = localCaFiles(options.localDirs);
  const extra = local.length
    ? `the host adds ${local.length} CA${local.length === 1 ? "" : "s"} of its own (${local.map((file) => path.basename(file)).join(", ")})`
    : "the host adds no CAs of its own";
  let bundle: string | null;
  try {
    bundle = resolveHostCaBundle({ setting: options.setting });
  } catch (error) {
    return {
      id: "certificates",
      title: TITLE,
      status: "fail",
      required: false,
      detail: messageOf(error),
      fix: 'Set INVARIANT_HOST_CA to "auto", "off" or an existing PEM bundle.',
    };
  }
  if (options.setting === "off")
    return {
      id: "certificates",
      title: TITLE,
      status: local.length ? "warn" : "ok",
      required: false,
      detail: `off (INVARIANT_HOST_CA=off): containers trust only their own CAs; ${extra}`,
      fix: local.length
        ? "Containers may fail to reach registries through this host's proxy (SELF_SIGNED_CERT_IN_CHAIN): unset INVARIANT_HOST_CA or set it to auto."
        : null,
    };
  if (!bundle)
    return {
      id: "certificates",
      title: TITLE,
      status: "warn",
      required: false,
      detail: `no system CA bundle found; ${extra}`,
      fix: "Install the ca-certificates package, or set INVARIANT_HOST_CA to your PEM bundle.",
    };
  return {
    id: "certificates",
    title: TITLE,
    status: "ok",
    required: false,
    detail: `${bundle} (${countCertificates(bundle)} certificates) is mounted read-only into containers with network; ${extra}`,
    fix: null,
  };
}
