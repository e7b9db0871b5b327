/** The devcontainer.json keys invariant-web refuses, ignores (saying so) or takes as labels (see docs/environments.md). */

/** Keys that would need a registry, another tool, or a wider container than ours: refused, with why. */
export const REFUSED_KEYS: Record<string, string> = {
  features:
    "Dev Container Features are downloaded from a registry (and run install scripts as root); invariant-web pulls from no registry. Install what the feature gives in the Dockerfile or in postCreateCommand instead",
  dockerComposeFile:
    "Docker Compose devcontainers are not supported: point the devcontainer.json at one image or Dockerfile (image or build.dockerfile)",
  service: "belongs to Docker Compose devcontainers, which are not supported",
  runServices: "belongs to Docker Compose devcontainers, which are not supported",
  mounts:
    "invariant-web decides what a container mounts (the project or a private copy); a repository cannot add mounts",
  workspaceMount: "invariant-web decides how the project is mounted; a repository cannot change it",
  runArgs: "extra docker run arguments could widen the container's isolation; a repository cannot set them",
  privileged: "a privileged container would escape the security model invariant-web keeps for every container",
  capAdd: "containers keep invariant-web's capability set; a repository cannot add capabilities",
  securityOpt: "containers keep invariant-web's security options; a repository cannot change them",
  init: "containers keep invariant-web's process model; a repository cannot change it",
  containerUser:
    "containers run as the host user (or as root with the project's Run as root setting); use remoteUser to record the user you expect",
};

/** Labels: accepted without a word. */
export const LABEL_KEYS = new Set(["name", "$schema"]);

/** Keys that do nothing here: accepted, and said in the build log and the environment page. */
export const IGNORED_KEYS: Record<string, string> = {
  initializeCommand:
    "it runs on the host in VS Code; invariant-web never runs a repository's command on the host, so it was not run",
  postStartCommand: "it runs each time a container starts; invariant-web has no such step, so it was not run",
  postAttachCommand: "it runs when an editor attaches; invariant-web has no such step, so it was not run",
  waitFor: "all lifecycle commands run before the version is ready",
  customizations: "editor settings (VS Code extensions, …) do not apply here",
  forwardPorts: "ports are not forwarded; the browser terminal reaches the container",
  portsAttributes: "ports are not forwarded",
  otherPortsAttributes: "ports are not forwarded",
  appPort: "ports are not published",
  remoteEnv: "use containerEnv, which every session and trial sees",
  workspaceFolder: "the project is always /workspace",
  shutdownAction: "invariant-web stops its containers itself",
  overrideCommand: "invariant-web starts its containers' processes itself",
  updateRemoteUserUID: "containers run as the host user already",
  userEnvProbe: "containerEnv is baked into the image instead",
  hostRequirements: "the project's container limits apply",
};
