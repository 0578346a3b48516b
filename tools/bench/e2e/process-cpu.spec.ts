import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CpuMeter, cpuSeconds, machineBusy } from './process-cpu';

describe('process CPU for the benchmark tables', () => {
  it("counts the CPU of a process's children too (a Redis AOF rewrite runs in a forked child)", async () => {
    // bash itself idles; the subshell it waits for burns CPU, then exits (its time moves to bash's cutime).
    const sh = spawn('bash', ['-c', 'x=0; (while [ $x -lt 400000 ]; do x=$((x+1)); done); sleep 30'], { stdio: 'ignore' });
    try {
      const pid = sh.pid!;
      const meter = new CpuMeter([{ name: 'sh', pid }]);
      const own = (): number => {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return Number(f[11]) + Number(f[12]);
      };
      // Wait for the child to have burnt some CPU (while running, then after it ended).
      for (let i = 0; i < 140 && (cpuSeconds(pid) ?? 0) < 0.3; i++) await new Promise((r) => setTimeout(r, 25));
      expect(cpuSeconds(pid)).toBeGreaterThanOrEqual(0.3);
      expect(own()).toBeLessThan(10); // bash's own ticks stay near zero: the time is the child's
      expect(meter.read()['sh']!.cpuSeconds).toBeGreaterThanOrEqual(0.2);
    } finally {
      sh.kill('SIGKILL');
    }
  });

  it('reads the whole machine as busy and total core-seconds that only grow', () => {
    const a = machineBusy();
    const b = machineBusy();
    expect(a.totalSeconds).toBeGreaterThan(0);
    expect(b.totalSeconds).toBeGreaterThanOrEqual(a.totalSeconds);
    expect(b.busySeconds).toBeGreaterThanOrEqual(a.busySeconds);
    expect(a.busySeconds).toBeLessThanOrEqual(a.totalSeconds);
  });
});
