/** Plain HTML for refusals: pages cannot be rendered for someone without a token. */
export function refusalPage(options: { title: string; message: string }): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(options.title)} · invariant-web</title>
<style>body{font:16px/1.5 system-ui,sans-serif;background:#0b0d12;color:#e6e8ee;display:grid;place-items:center;min-height:100vh;margin:0}
main{max-width:34rem;padding:2rem;border:1px solid #2a2f3a;border-radius:12px;background:#12151c}h1{font-size:1.25rem;margin:0 0 .5rem}code{background:#1d2230;padding:.1rem .3rem;border-radius:4px}</style>
</head><body><main><h1>${escape(options.title)}</h1><p>${escape(options.message)}</p></main></body></html>`;
}
