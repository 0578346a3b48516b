/** Where a command writes: progress and results to `out`, refusals and problems to `err`. One call per line. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** The process's stdout/stderr. */
export const processOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The message of anything thrown. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
