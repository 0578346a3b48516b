/** One refused environment variable: its name and why. */
export interface ConfigIssue {
  readonly variable: string;
  readonly message: string;
}

/**
 * The environment is invalid: the process must not start. The message names every refused
 * variable so an operator can fix them all at once.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID' as const;
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}
