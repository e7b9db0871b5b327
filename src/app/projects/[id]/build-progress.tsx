/** "Preparing version N…" with a bar from the build log's last "[k/n]" step (a pulse while none was printed). */
export function BuildProgress({ version, progress }: { version: number; progress: number | null }) {
  return (
    <div className="mb-4" role="status" aria-label="Build progress">
      <p className="mb-1 text-sm">Preparing version {version}…</p>
      <div className="h-2 overflow-hidden rounded bg-line">
        <div
          className={`h-full bg-accent transition-all ${progress === null ? "w-1/3 animate-pulse" : ""}`}
          style={progress === null ? undefined : { width: `${Math.round(progress * 100)}%` }}
        />
      </div>
    </div>
  );
}
