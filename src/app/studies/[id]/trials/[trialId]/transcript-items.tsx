import type { TranscriptItem } from "../../../../../shared/review-schemas";
import { TrialStateBadge } from "../../../state-badge";
import { formatCount, formatSeconds, formatVerdict } from "../../../study-format";

const time = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/** One entry of the timeline: when, a small tag, and what happened. */
export function TranscriptEntry({ item }: { item: TranscriptItem }) {
  return (
    <li className="grid grid-cols-[4.5rem_1fr] gap-2 border-t border-line py-2 first:border-t-0" data-kind={item.kind}>
      <time dateTime={item.at} className="pt-0.5 font-mono text-[11px] tabular-nums text-muted">
        {time.format(new Date(item.at))}
      </time>
      <div className="min-w-0 text-sm">
        <EntryBody item={item} />
      </div>
    </li>
  );
}

function Tag({ children, className = "text-muted" }: { children: string; className?: string }) {
  return <span className={`mr-2 text-[11px] font-semibold uppercase tracking-wide ${className}`}>{children}</span>;
}

function EntryBody({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case "start":
      return (
        <p>
          <Tag>start</Tag>attempt {item.attempt}
          {item.workspaceId ? <span className="text-muted"> · workspace {item.workspaceId}</span> : null}
        </p>
      );
    case "step":
      return (
        <p>
          <Tag>step</Tag>
          <TrialStateBadge state={item.state} /> <span className="text-muted">{item.step}</span>
        </p>
      );
    case "message":
      return (
        <div>
          <Tag className="text-accent">agent</Tag>
          <p className="mt-1 whitespace-pre-wrap break-words">{item.text}</p>
        </div>
      );
    case "reasoning":
      return (
        <div>
          <Tag>reasoning</Tag>
          <p className="mt-1 whitespace-pre-wrap break-words text-muted italic">{item.text}</p>
        </div>
      );
    case "command":
      return <CommandEntry item={item} />;
    case "file-change":
      return <FileChangeEntry item={item} />;
    case "usage":
      return (
        <p>
          <Tag>tokens</Tag>
          {formatCount(item.tokens.total)} total{" "}
          <span className="text-muted">
            ({formatCount(item.tokens.input)} in, {formatCount(item.tokens.cachedInput)} cached,{" "}
            {formatCount(item.tokens.output)} out, {formatCount(item.tokens.reasoning)} reasoning)
          </span>
        </p>
      );
    case "error":
      return (
        <p className={item.fatal ? "text-danger" : "text-warn-soft"}>
          <Tag className={item.fatal ? "text-danger" : "text-warn-soft"}>{item.fatal ? "error" : "warning"}</Tag>
          <span className="whitespace-pre-wrap break-words">{item.message}</span>
        </p>
      );
    case "finish":
      return (
        <p>
          <Tag>finish</Tag>
          <TrialStateBadge state={item.state} /> tests {formatVerdict(item.verdict)} ·{" "}
          {formatSeconds(item.agentSeconds)} s
          {item.error ? <span className="block whitespace-pre-wrap text-danger">{item.error}</span> : null}
        </p>
      );
  }
}

const commandStatusStyle: Record<string, string> = {
  running: "text-accent",
  completed: "text-ok-soft",
  failed: "text-danger-soft",
  declined: "text-warn-soft",
};

function CommandEntry({ item }: { item: Extract<TranscriptItem, { kind: "command" }> }) {
  const exit = item.exitCode === null ? item.status : `exit ${item.exitCode}`;
  const style = item.exitCode !== null && item.exitCode !== 0 ? "text-danger-soft" : commandStatusStyle[item.status];
  return (
    <details className="group" data-testid="transcript-command">
      <summary className="flex cursor-pointer list-none items-baseline gap-2">
        <Tag>command</Tag>
        <code className="min-w-0 flex-1 truncate font-mono text-xs" title={item.command}>
          $ {item.command}
        </code>
        <span className={`shrink-0 text-xs tabular-nums ${style ?? ""}`} data-testid="command-exit">
          {exit}
        </span>
        <span aria-hidden="true" className="shrink-0 text-xs text-muted group-open:rotate-90">
          ›
        </span>
      </summary>
      <pre className="mt-2 max-h-72 overflow-auto whitespace-pre-wrap break-words rounded border border-line bg-canvas p-2 font-mono text-[11px]">
        {item.outputTruncated
          ? `… (last ${formatCount(item.outputTail.length)} of ${formatCount(item.outputChars)} characters)\n`
          : ""}
        {item.outputTail || "(no output)"}
      </pre>
    </details>
  );
}

const changeMark = { add: "A", delete: "D", update: "M" } as const;

function FileChangeEntry({ item }: { item: Extract<TranscriptItem, { kind: "file-change" }> }) {
  return (
    <div>
      <Tag>files</Tag>
      <span className="text-muted">{item.status}</span>
      <ul className="mt-1 space-y-0.5">
        {item.changes.map((change) => (
          <li key={`${change.kind}:${change.path}`} className="font-mono text-xs">
            <span className="mr-2 text-muted" title={change.kind}>
              {changeMark[change.kind]}
            </span>
            {change.path}
          </li>
        ))}
      </ul>
    </div>
  );
}
