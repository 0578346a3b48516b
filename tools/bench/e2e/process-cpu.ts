import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** A server process watched for CPU, found through the pid file its starter wrote. */
export interface WatchedProcess {
  readonly name: string;
  readonly pid: number;
}

const CLK_TCK = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * The writer and mailbox (whichever process listens on their ports, whoever started it) and the
 * servers tools/infra started (by pid file), if running.
 */
export function watchedProcesses(root: string, servicePorts: Record<string, number>): WatchedProcess[] {
  const out: WatchedProcess[] = [];
  for (const [name, port] of Object.entries(servicePorts)) {
    const pid = listenerPid(port);
    if (pid !== null) out.push({ name, pid });
  }
  const files: [string, string][] = [
    ['kafka', '.infra/kafka/kafka.pid'],
    ['redis', '.infra/redis/redis.pid'],
    ['cassandra', '.infra/cassandra/cassandra.pid'],
  ];
  for (const [name, file] of files) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    const pid = Number(readFileSync(path, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && cpuSeconds(pid) !== null) out.push({ name, pid });
  }
  return out;
}

/** The pid of the process holding a listening TCP socket on `port` (/proc/net/tcp{,6} → /proc/<pid>/fd), or null. */
export function listenerPid(port: number): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1]!.endsWith(`:${hexPort}`) && f[3] === '0A') inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const dir of readdirSync('/proc')) {
    if (!/^\d+$/.test(dir)) continue;
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${dir}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${dir}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(dir);
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  return null;
}

/** The fields of /proc/<pid>/stat after the command name (field 3 on), or null when it is gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at ") ".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a process and its children (s): its own utime + stime, the children it has waited
 * for (cutime + cstime) and the children still running. A Redis AOF rewrite or RDB save runs in a
 * forked child for seconds at a time; without it the table would show Redis idle while a core is busy.
 * Null when the process is gone.
 */
export function cpuSeconds(pid: number): number | null {
  const f = statFields(pid);
  if (f === null) return null;
  let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  for (const dir of readdirSync('/proc')) {
    if (!/^\d+$/.test(dir)) continue;
    const c = statFields(dir);
    if (c !== null && Number(c[1]) === pid) ticks += Number(c[11]) + Number(c[12]);
  }
  return ticks / CLK_TCK;
}

/** Core-seconds of the whole machine since boot (/proc/stat): busy (everything but idle and iowait) and total. */
export function machineBusy(): { busySeconds: number; totalSeconds: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = v[3]! + v[4]!;
  return { busySeconds: (total - idle) / CLK_TCK, totalSeconds: total / CLK_TCK };
}

/** CPU use of each watched process and of this benchmark over an interval. */
export class CpuMeter {
  private readonly start: Map<string, number | null>;
  private readonly t0 = performance.now();
  private readonly self0 = process.cpuUsage();
  private readonly machine0 = machineBusy();

  constructor(private readonly procs: readonly WatchedProcess[]) {
    this.start = new Map(procs.map((p) => [p.name, cpuSeconds(p.pid)]));
  }

  /** Per process: CPU seconds used and % of one core over the interval so far. */
  read(): Record<string, { cpuSeconds: number; corePercent: number } | null> {
    const wall = (performance.now() - this.t0) / 1000;
    const out: Record<string, { cpuSeconds: number; corePercent: number } | null> = {};
    for (const p of this.procs) {
      const a = this.start.get(p.name);
      const b = cpuSeconds(p.pid);
      out[p.name] = a == null || b === null ? null : entry(b - a, wall);
    }
    const self = process.cpuUsage(this.self0);
    out['bench-client'] = entry((self.user + self.system) / 1e6, wall);
    return out;
  }

  /** The whole machine's busy CPU over the interval so far, % of one core (every process, the kernel's work included). */
  machineCorePercent(): number {
    const wall = (performance.now() - this.t0) / 1000;
    const m = machineBusy();
    return entry(m.busySeconds - this.machine0.busySeconds, wall).corePercent;
  }
}

function entry(cpu: number, wall: number): { cpuSeconds: number; corePercent: number } {
  return { cpuSeconds: Math.round(cpu * 100) / 100, corePercent: wall > 0 ? Math.round((cpu / wall) * 1000) / 10 : 0 };
}
