import { expect } from "vitest";

/**
 * The escape suite: a shell script run inside a container the product starts for an agent (a trial's,
 * a session's), which tries each way out of the container a root process there might have and prints
 * one line per attempt: `<attack> denied` or `<attack> ALLOWED <detail>`. x86_64 syscall numbers:
 * open_by_handle_at 304, add_key 248, keyctl 250.
 */
export function escapeScript(options: { hostMarker: string }): string {
  return [
    'say() { echo "$1 $2"; }',
    'try() { what=$1; shift; if out=$("$@" 2>&1); then say "$what" "ALLOWED $(echo "$out" | head -c 200)"; else say "$what" denied; fi; }',
    // open_by_handle_at: the "shocker" escape, a handle to inode 2 (the host filesystem's root) opened through a bind mount
    `try open-by-handle perl -e 'open(my $d, "<", "/workspace") or open($d, "<", "/") or exit 1; my $h = pack("LiLL", 8, 1, 2, 0); my $fd = syscall(304, fileno($d), $h, 0); exit($fd >= 0 ? 0 : 1)'`,
    "try mount-tmpfs mount -t tmpfs none /mnt",
    "try mount-proc mount -t proc proc /mnt",
    "try remount-root mount -o remount,rw /proc/sys",
    "try unshare-user unshare -U -r true",
    `try raw-socket perl -MSocket -e 'socket(my $s, PF_INET, SOCK_RAW, 1) or exit 1'`,
    `try packet-socket perl -MSocket -e 'socket(my $s, 17, SOCK_RAW, 0) or exit 1'`,
    `try docker-socket sh -c 'for s in /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock; do [ -e "$s" ] && { echo "$s"; exit 0; }; done; exit 1'`,
    // a file only the host has: never visible, not even through pid 1's root
    `try host-path sh -c 'cat "${options.hostMarker}" || cat "/proc/1/root${options.hostMarker}"'`,
    `try proc-1-root-is-host sh -c '[ "$(ls /proc/1/root/ | sort)" != "$(ls / | sort)" ]'`,
    "try mknod-block mknod /tmp/sda b 8 0",
    "try mknod-char mknod /tmp/mem c 1 1",
    `try block-devices sh -c 'test -n "$(find /dev -type b 2>/dev/null)"'`,
    `try host-memory sh -c 'head -c 1 /dev/mem || head -c 1 /dev/kmem || head -c 1 /proc/kcore'`,
    `try add-key perl -e 'exit(syscall(248, "user", "escape", "secret", 6, -3) >= 0 ? 0 : 1)'`,
    `try keyctl perl -e 'exit(syscall(250, 1, 0) >= 0 ? 0 : 1)'`,
    "try sysrq sh -c 'echo h > /proc/sysrq-trigger'",
    "try sysfs-write sh -c 'echo 1 > /sys/kernel/mm/ksm/run'",
    "try chroot chroot / true",
    "try kernel-module sh -c 'grep -q . /proc/modules && echo x > /proc/sys/kernel/modprobe'",
    // what the process holds: no DAC_READ_SEARCH (2), NET_RAW (13), SYS_MODULE (16), SYS_PTRACE (19), SYS_ADMIN (21), MKNOD (27)
    `try dangerous-capability sh -c 'bnd=$(grep CapBnd /proc/self/status | cut -f2); [ $(( 0x$bnd & ((1<<2)|(1<<13)|(1<<16)|(1<<19)|(1<<21)|(1<<27)) )) -ne 0 ]'`,
    `try new-privileges sh -c 'grep -q "NoNewPrivs:[[:space:]]*0" /proc/self/status'`,
    // the tools the attempts use are there (an attempt with a missing tool would be "denied" for nothing)
    'for tool in perl mount unshare mknod chroot find; do command -v "$tool" >/dev/null || echo "missing-tool $tool"; done',
    'echo "escape-suite-done uid=$(id -u)"',
  ].join("\n");
}

/** Every attempt of the suite was refused, and the suite ran to its end (as `uid`, when given). */
export function expectEscapesRefused(output: string, options: { uid?: number } = {}): void {
  const lines = output.split(/\r?\n/).map((line) => line.trim());
  const done = lines.find((line) => line.startsWith("escape-suite-done"));
  expect(done, `the escape suite did not finish:\n${output.slice(-2000)}`).toBeDefined();
  if (options.uid !== undefined) expect(done).toBe(`escape-suite-done uid=${options.uid}`);
  expect(lines.filter((line) => line.startsWith("missing-tool"))).toEqual([]);
  const results = lines.filter((line) => /^[a-z0-9-]+ (denied|ALLOWED)/.test(line));
  expect(results.length).toBe(ESCAPE_ATTEMPTS);
  expect(results.filter((line) => line.includes("ALLOWED"))).toEqual([]);
}

/** How many attempts escapeScript makes (each prints one line). */
export const ESCAPE_ATTEMPTS = escapeScript({ hostMarker: "/x" })
  .split("\n")
  .filter((line) => line.startsWith("try ")).length;
