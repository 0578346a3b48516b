import type { StorageSample } from './checker';
import type { SoakResult } from './soak';
import { growsByDesign } from './structures';

/** The days shown in the text table: day 0, then about 10 evenly spaced days, always the last. */
export function tableDays(samples: readonly StorageSample[], columns = 10): number[] {
  const days = samples.map((s) => s.day);
  if (days.length <= columns + 1) return days;
  const last = days[days.length - 1]!;
  const step = Math.ceil(last / columns);
  const out = days.filter((d) => d === 0 || d % step === 0);
  if (out[out.length - 1] !== last) out.push(last);
  return out;
}

/** Rows / keys per structure per simulated day, as a fixed-width text table. */
export function storageTable(r: SoakResult): string {
  const days = tableDays(r.samples);
  const byDay = new Map(r.samples.map((s) => [s.day, s.counts]));
  const names = [...new Set(r.samples.flatMap((s) => Object.keys(s.counts)))].sort();
  const width = Math.max(12, ...names.map((n) => n.length + 2));
  const head = `${r.backend} storage per simulated day (rows; redis: keys and collection members)`;
  const lines = [head, `${'structure'.padEnd(width)}${days.map((d) => `d${d}`.padStart(8)).join('')}  note`];
  for (const n of names) {
    const cells = days.map((d) => String(byDay.get(d)?.[n] ?? 0).padStart(8)).join('');
    lines.push(`${n.padEnd(width)}${cells}  ${growsByDesign(r.backend, n) ? 'grows by design (default retention)' : 'bounded'}`);
  }
  return lines.join('\n');
}
