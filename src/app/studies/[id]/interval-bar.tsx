/**
 * An error bar on a 0–100 % track: the estimate as a dot, its 95 % interval as a bar, with the figures
 * in the accessible label. Without an interval (one trial) only the dot is drawn.
 */
export function IntervalBar({
  value,
  interval,
  label,
}: {
  value: number;
  interval: { low: number; high: number } | null | undefined;
  label: string;
}) {
  const x = (fraction: number) => 2 + fraction * 76;
  const described = interval
    ? `${label}: ${Math.round(value * 100)}%, 95 % interval ${Math.round(interval.low * 100)}–${Math.round(interval.high * 100)}%`
    : `${label}: ${Math.round(value * 100)}%, no interval from a single trial`;
  return (
    <svg
      role="img"
      aria-label={described}
      data-testid="interval-bar"
      width="80"
      height="12"
      viewBox="0 0 80 12"
      className="inline-block align-middle"
    >
      <title>{described}</title>
      <line x1={x(0)} x2={x(1)} y1="6" y2="6" className="stroke-line" strokeWidth="2" />
      {interval ? (
        <g className="stroke-accent" strokeWidth="2">
          <line x1={x(interval.low)} x2={x(interval.high)} y1="6" y2="6" />
          <line x1={x(interval.low)} x2={x(interval.low)} y1="2" y2="10" />
          <line x1={x(interval.high)} x2={x(interval.high)} y1="2" y2="10" />
        </g>
      ) : null}
      <circle cx={x(value)} cy="6" r="3" className="fill-ink" />
    </svg>
  );
}

/** "15–85 %" for an interval, or nothing. */
export function intervalText(interval: { low: number; high: number } | null | undefined): string | null {
  return interval ? `${Math.round(interval.low * 100)}–${Math.round(interval.high * 100)} %` : null;
}
