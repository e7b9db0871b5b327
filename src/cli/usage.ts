import { DEFAULT_PORT } from "./config";

/** `invariant-web --help`. */
export const USAGE = `invariant-web — persistent, isolated environments for coding agents

Usage:
  invariant-web [options]            start the dashboard, a worker and (if needed) a private Redis
  invariant-web worker [options]     start a standalone worker that joins through Redis
  invariant-web doctor [--json]      check Node.js, Docker, Redis, disk space and the Codex binary;
                                     list each model provider's access and the harnesses it makes usable
  invariant-web environment list --project P
  invariant-web environment prepare --project P [--command "..." | --devcontainer]
                                     build a project's environment (or a new version by running a
                                     command in the active one, or from its devcontainer.json)
                                     through the running dashboard
  invariant-web dependencies show|install --project P|--last
  invariant-web dependencies set --project P|--last [--command "..."] [--kind K] [--outputs a,b]
                                     [--manifests a,b] | --detected
                                     a project's dependency step (detected from its manifests, or set
                                     by hand), what the active version installed; install runs it as
                                     a new environment version, following its log
  invariant-web apply WORKSPACE|--trial TRIAL [--yes] [--json]
                                     show the plan that applies a workspace's (or a trial's) changes
                                     to its project (and its conflicts); with --yes, apply it all-or-nothing
  invariant-web branch create --trial TRIAL [--push REMOTE] [--json] | list --project P|--last [--trial T]
  invariant-web branch remove BRANCH [--json]
                                     Apply as a branch: the trial's changes as one commit on a new branch
                                     invariant/<study>-<number> of the project's git repository (from the
                                     study's commit; the work tree, index and HEAD untouched), optionally
                                     pushed; list them; remove one (only while it is where it was made)
  invariant-web project add DIR [--name N] | list | show [P|--last] | settings [P|--last] [--set k=v …]
  invariant-web project relink DIR --project P|--last   point a project at its folder's new path
  invariant-web study create --file study.json|.yaml [--project P|--last]
  invariant-web study list [--project P] | show|follow|wait|stop [STUDY|--last] [--timeout S]
  invariant-web study retry [STUDY|--last] [--trial T …] | choose [STUDY|--last] --trial T [--note N] | --clear
  invariant-web study repeat [STUDY|--last] [--repeats N]   N more repeats of every configuration (default 1)
  invariant-web study export [STUDY|--last] [--format md|json|csv] [--output FILE]
  invariant-web trial log TRIAL [--tail BYTES] | diff TRIAL
  invariant-web trial comment --trial T --body TEXT [--path P [--lines A-B]] | comments --trial T
  invariant-web trial follow-up --trial T [--trial T2 …] [--feedback TEXT] [--wait [--timeout S]]
                                     review comments, and a follow-up that resumes the agent with them
                                     the workflow through the running dashboard (docs/automation.md)
  invariant-web mcp [--token-file FILE]
                                     an MCP server on stdio driving the running dashboard (projects,
                                     environments, studies, verdicts, diffs, apply by plan hash); with a
                                     viewer link's token (--token-file or INVARIANT_TOKEN) read-only tools
                                     only. Also at http://HOST:PORT/mcp (docs/automation.md "MCP server")
  invariant-web export STUDY [--format md|json|csv] [--output FILE]
                                     write a study's report (default Markdown, to stdout)
  invariant-web login [--provider openai|anthropic|google]
                                     store a provider's API key in the data dir for the model gateway
                                     (default openai; typed without echo, or piped:
                                     printenv ANTHROPIC_API_KEY | invariant-web login --provider anthropic);
                                     never on the command line. Prints each provider's access
  invariant-web logout [--provider openai|anthropic|google]
                                     remove that provider's stored API key (default openai)
  invariant-web demo [--scripted] [DIR]
                                     the demo study (calendar task, 3 efforts, 23 checks), followed to
                                     the end; without model access on the bundled scripted model
  invariant-web mock-model [--port N] [--host ADDR] [--scripts DIR]
                                     serve a scripted local Responses API (POST /v1/responses) for
                                     offline runs, tests and demos; the request's model names the script

Options:
  --port N            port to listen on (default ${DEFAULT_PORT}; env INVARIANT_PORT; 0 picks a free port)
  --host ADDR         address to bind (default 127.0.0.1; env INVARIANT_HOST)
  --data-dir DIR      where data lives (default $XDG_DATA_HOME/invariant-web or ~/.local/share/invariant-web; env INVARIANT_DATA_DIR)
  --redis-url URL     use this Redis (redis://, rediss:// or unix://; env REDIS_URL) instead of a private one
  --concurrency N     jobs a worker runs at once (env INVARIANT_WORKER_CONCURRENCY)
  --dashboard-url URL worker: a worker on another host, talking to the dashboard at URL over HTTP
                      (env INVARIANT_DASHBOARD_URL; docs/scaling.md)
  --worker-token-file FILE
                      worker: the worker token for --dashboard-url (env INVARIANT_WORKER_TOKEN_FILE,
                      or the token itself in INVARIANT_WORKER_TOKEN); never on the command line
  --registry HOST[:PORT][/PATH]
                      launcher and worker: move images between hosts through this OCI registry (env
                      INVARIANT_REGISTRY; credentials in INVARIANT_REGISTRY_USERNAME/PASSWORD) instead of docker save
  --token-file FILE   mcp: a viewer link's token instead of the data dir's admin token (env
                      INVARIANT_TOKEN holds the token itself); never on the command line
  --no-open           do not open a browser
  --no-worker         start no worker child (workers join separately, e.g. with Docker Compose)
  --json              machine-readable output (doctor; a versioned envelope: docs/automation.md)
  --last              the most recent study (study commands) or project (project, environment, dependencies)
  -f, --file FILE     study create: the study (the form's fields) in JSON, or YAML (.yaml/.yml)
  --trial T           apply, branch, study choose, study retry: a trial id (retry takes several)
  --push REMOTE       branch create: push the new branch to this remote of the repository (e.g. origin)
  --repeats N         study repeat: repeats to add to every configuration (1..20, default 1)
  --body TEXT         trial comment: the comment; --path P and --lines A-B put it on a file's lines
  --feedback TEXT     trial follow-up: feedback for every trial named, besides each one's own comments
  --wait              trial follow-up: wait until the follow-ups end (and print their verdicts)
  --timeout S         study wait/follow, environment prepare, dependencies install: give up after S seconds (exit 4)
  --project P         a project's id, name or directory
  --set key=value     project settings: change a setting (cpus=2, memoryBytes=4GiB, …); repeatable
  --command "..."     environment prepare: a shell command to run in the active environment version;
                      dependencies set: the command that installs the dependencies (e.g. "npm ci")
  --devcontainer      environment prepare: build the version from the project's .devcontainer/devcontainer.json
                      (its image or Dockerfile, containerEnv, onCreateCommand/postCreateCommand)
  --kind K            dependencies set: npm, pnpm, yarn, python, go, cargo or command
  --outputs a,b       dependencies set: the folders the step leaves (node_modules, .venv, …; "" for none)
  --manifests a,b     dependencies set: the files the step reads (package.json, package-lock.json, …)
  --detected          dependencies set: forget the edited step and use the detected one again
  --provider P        login, logout: openai (default), anthropic or google
  --scripts DIR       mock-model scripts (<model>.json; default: the package's mock-scripts/)
  -y, --yes           apply: apply the plan shown (refused as a whole if anything conflicts)
  --format F          export: md, json or csv (default md)
  -o, --output FILE   export: write the report to FILE instead of stdout
  -h, --help          show this help
  -v, --version       print the version
`;
