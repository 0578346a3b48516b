/**
 * Reads a required environment variable for the infrastructure smoke tests.
 * A missing variable is a failure, never a skip: a gate that turns green without its server
 * proves nothing. The message says how to get the variables.
 */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') {
    throw new Error(`${name} is not set. Start the servers and export their addresses first:\n` + '  tools/infra/infra up && eval "$(tools/infra/infra env)"');
  }
  return value.trim();
}

/** Splits "host:port" into its parts; throws on anything else. */
export function hostPort(name: string): { readonly host: string; readonly port: number } {
  const value = requireEnv(name);
  const match = /^([^:]+):(\d+)$/.exec(value);
  if (!match) throw new Error(`${name}=${value} is not host:port`);
  return { host: match[1]!, port: Number(match[2]) };
}
