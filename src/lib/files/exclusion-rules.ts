/**
 * What a snapshot never contains, whatever the project's .gitignore says. Patterns use gitignore
 * syntax and are matched at every depth, even those with a "/" inside (a trailing "/" matches
 * directories only).
 * docs/snapshots-and-apply.md lists them; keep the two in step.
 */
export type ExclusionCategory = "vcs" | "dependencies" | "secrets" | "internal";

export interface ExclusionRule {
  pattern: string;
  category: ExclusionCategory;
  why: string;
}

export const ALWAYS_EXCLUDED: readonly ExclusionRule[] = [
  // version control: the snapshot is materialised as a fresh repository with one commit
  { pattern: ".git", category: "vcs", why: "git history and config (a file in worktrees and submodules)" },
  { pattern: ".hg/", category: "vcs", why: "Mercurial history" },
  { pattern: ".svn/", category: "vcs", why: "Subversion metadata" },
  { pattern: ".jj/", category: "vcs", why: "Jujutsu history" },

  // dependency caches and virtual environments: reinstalled inside the environment
  { pattern: "node_modules/", category: "dependencies", why: "npm/yarn/pnpm packages" },
  { pattern: "bower_components/", category: "dependencies", why: "Bower packages" },
  { pattern: ".pnpm-store/", category: "dependencies", why: "pnpm store" },
  { pattern: ".yarn/cache/", category: "dependencies", why: "Yarn cache" },
  { pattern: ".venv/", category: "dependencies", why: "Python virtual environment" },
  { pattern: "__pycache__/", category: "dependencies", why: "Python bytecode" },
  { pattern: ".mypy_cache/", category: "dependencies", why: "mypy cache" },
  { pattern: ".pytest_cache/", category: "dependencies", why: "pytest cache" },
  { pattern: ".ruff_cache/", category: "dependencies", why: "ruff cache" },
  { pattern: ".tox/", category: "dependencies", why: "tox environments" },
  { pattern: ".nox/", category: "dependencies", why: "nox environments" },
  { pattern: "target/", category: "dependencies", why: "Cargo/Maven build output and dependency builds" },
  { pattern: ".gradle/", category: "dependencies", why: "Gradle cache" },
  { pattern: ".m2/", category: "dependencies", why: "Maven repository" },
  { pattern: ".cache/", category: "dependencies", why: "tool caches" },
  { pattern: ".terraform/", category: "dependencies", why: "Terraform providers" },
  { pattern: ".direnv/", category: "dependencies", why: "direnv environments" },

  // secrets: never copied into a snapshot, so never seen by an agent
  { pattern: ".env*", category: "secrets", why: "dotenv files (.env, .env.local, .envrc …)" },
  { pattern: "id_rsa*", category: "secrets", why: "SSH private keys" },
  { pattern: "id_dsa*", category: "secrets", why: "SSH private keys" },
  { pattern: "id_ecdsa*", category: "secrets", why: "SSH private keys" },
  { pattern: "id_ed25519*", category: "secrets", why: "SSH private keys" },
  { pattern: "*.pem", category: "secrets", why: "PEM keys and certificates" },
  { pattern: "*.key", category: "secrets", why: "private keys" },
  { pattern: "*.p12", category: "secrets", why: "PKCS#12 key stores" },
  { pattern: "*.pfx", category: "secrets", why: "PKCS#12 key stores" },
  { pattern: "*.jks", category: "secrets", why: "Java key stores" },
  { pattern: "*.keystore", category: "secrets", why: "key stores" },
  { pattern: ".npmrc", category: "secrets", why: "npm registry tokens" },
  { pattern: ".pypirc", category: "secrets", why: "PyPI tokens" },
  { pattern: ".netrc", category: "secrets", why: "login credentials" },
  { pattern: "_netrc", category: "secrets", why: "login credentials" },
  { pattern: ".git-credentials", category: "secrets", why: "git credentials" },
  { pattern: ".htpasswd", category: "secrets", why: "password hashes" },
  { pattern: ".aws/", category: "secrets", why: "AWS credentials" },
  { pattern: ".azure/", category: "secrets", why: "Azure credentials" },
  { pattern: ".gcloud/", category: "secrets", why: "Google Cloud credentials" },
  { pattern: ".ssh/", category: "secrets", why: "SSH keys and config" },
  { pattern: ".gnupg/", category: "secrets", why: "GPG keys" },
  { pattern: ".docker/config.json", category: "secrets", why: "registry credentials" },
  { pattern: ".kube/config", category: "secrets", why: "Kubernetes credentials" },
  { pattern: "credentials.json", category: "secrets", why: "credential files" },
  { pattern: "*.credentials", category: "secrets", why: "credential files" },
  { pattern: "service-account*.json", category: "secrets", why: "cloud service-account keys" },

  // our own staging directories, should an apply ever be interrupted
  { pattern: ".invariant-apply-*/", category: "internal", why: "staging area of an interrupted apply" },
];

/** Name of the per-apply staging directory created at the project root (matched by the "internal" rule above). */
export const APPLY_STAGING_PREFIX = ".invariant-apply-";
