const MIB = 1024 * 1024;

/** A byte count as messages print it: "512 B", "1.5 KiB", "64.0 MiB", "10.00 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MIB) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  return `${(bytes / 1024 / MIB).toFixed(2)} GiB`;
}
