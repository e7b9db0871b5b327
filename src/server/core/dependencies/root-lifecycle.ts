/**
 * The root project's own lifecycle scripts (`prepare: tsc --build`, `postinstall: …`) need its sources,
 * and a dependency step has only its manifests: npm, pnpm and yarn run them after installing, so the
 * whole step failed. The step holds them back instead: package.json is kept aside, rewritten without
 * those scripts, and put back byte for byte when the command ends (whatever its outcome). Dependencies'
 * own install scripts still run, so native modules build.
 */
export const ROOT_LIFECYCLE_SCRIPTS = [
  "preinstall",
  "install",
  "postinstall",
  "prepublish",
  "preprepare",
  "prepare",
  "postprepare",
  "dependencies",
] as const;

const STRIP = [
  "const fs=require('fs');",
  "const p=JSON.parse(fs.readFileSync('package.json','utf8'));",
  `const held=${JSON.stringify(ROOT_LIFECYCLE_SCRIPTS)}.filter(n=>p.scripts&&n in p.scripts);`,
  "for(const n of held)delete p.scripts[n];",
  "if(held.length){fs.writeFileSync('package.json',JSON.stringify(p,null,2)+'\\n');console.log('holding back the project\\'s own '+held.join(', ')+' script'+(held.length>1?'s':'')+' (they need its sources; dependencies\\' install scripts still run)')}",
].join("");

/**
 * Shell lines that run `command` (a shell expression, e.g. "$INVARIANT_DEPENDENCY_COMMAND") in the
 * current folder with the root package.json's lifecycle scripts held back; without a package.json or
 * node the command runs as it is.
 */
export function withoutRootLifecycle(command: string): string {
  return [
    "if [ -f package.json ] && command -v node >/dev/null 2>&1; then",
    "  cp -p package.json /tmp/invariant-package.json",
    "  trap 'cp -p /tmp/invariant-package.json package.json' EXIT",
    `  node -e ${shellQuote(STRIP)}`,
    `  ${command}`,
    "  cp -p /tmp/invariant-package.json package.json",
    "  trap - EXIT",
    "else",
    `  ${command}`,
    "fi",
  ].join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
