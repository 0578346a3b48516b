import { Client, errors, types } from 'cassandra-driver';
import { InvalidInputError } from '@qim/store-core';
import type { ScyllaConfig } from '../config/scylla-config';
import { executionProfiles, mapDriverError } from './statements';

/** Options the tests and benchmarks may add; production passes none. */
export interface ClientTuning {
  /** Driver request tracker (tests use one to observe the options each statement ran with). */
  readonly requestTracker?: ConstructorParameters<typeof Client>[0]['requestTracker'];
}

/**
 * The CQL port the driver must use for every node it discovers. The driver connects to the contact
 * points as given but reaches the peers it learns from `system.peers` on `protocolOptions.port`
 * (default 9042), so a cluster on another port (e.g. `127.0.0.1:9043,127.0.0.2:9043`) needs it set.
 * Contact points naming different ports cannot describe one cluster's native port → `InvalidInputError`.
 */
export function nativePortOf(contactPoints: readonly string[]): number | undefined {
  const ports = new Set(contactPoints.map((p) => /:(\d+)$/.exec(p)?.[1]).filter((p): p is string => p !== undefined));
  if (ports.size > 1) throw new InvalidInputError(`scylla contact points name different ports: ${contactPoints.join(',')}`);
  const [port] = [...ports];
  return port === undefined ? undefined : Number(port);
}

/**
 * Builds (does not connect) a driver client for `config`: explicit contact points and local DC,
 * the `read`/`write`/`lwt` execution profiles, `useBigIntAsLong` so no `Long` leaks out, and no
 * default keyspace (statements are fully qualified, so a missing keyspace fails the statement,
 * never silently picks another one).
 */
export function createClient(config: ScyllaConfig, tuning: ClientTuning = {}): Client {
  return new Client({
    contactPoints: [...config.contactPoints],
    localDataCenter: config.localDataCenter,
    profiles: executionProfiles(),
    encoding: { useBigIntAsLong: true, useUndefinedAsUnset: false },
    queryOptions: {
      consistency: types.consistencies.localQuorum,
      serialConsistency: types.consistencies.localSerial,
      prepare: true,
    },
    protocolOptions: { maxSchemaAgreementWaitSeconds: 60, ...portOption(config.contactPoints) },
    socketOptions: { readTimeout: 30_000 },
    ...(tuning.requestTracker ? { requestTracker: tuning.requestTracker } : {}),
  });
}

function portOption(contactPoints: readonly string[]): { port?: number } {
  const port = nativePortOf(contactPoints);
  return port === undefined ? {} : { port };
}

interface ControlConnectionInternals {
  controlConnection?: { shutdown(): void; reset(): Promise<void>; connection?: { close(cb: () => void): void } | null };
}

/**
 * Driver 4.8 workaround: after a failed `connect()`, `shutdown()` returns early (the client never
 * became "connected") and leaves the control connection's socket open, which keeps the process
 * alive. Close it explicitly; every step is best effort.
 */
async function releaseAfterFailedConnect(client: Client): Promise<void> {
  await client.shutdown().catch(() => undefined);
  const cc = (client as unknown as ControlConnectionInternals).controlConnection;
  if (cc === undefined) return;
  try {
    cc.shutdown();
    await cc.reset();
    const conn = cc.connection;
    if (conn) await new Promise<void>((resolve) => conn.close(() => resolve()));
  } catch {
    // best effort: the connect failure is what the caller must see
  }
}

/** The driver refuses a `localDataCenter` it finds no host in: a configuration error, not an outage. */
function unknownLocalDataCenter(err: unknown): string | null {
  if (!(err instanceof errors.NoHostAvailableError)) return null;
  const inner = Object.values((err.innerErrors ?? {}) as Record<string, unknown>);
  const hit = inner.find((e) => e instanceof errors.ArgumentError && /localDataCenter/.test(e.message));
  return hit instanceof Error ? hit.message : null;
}

/**
 * A connected session: opens the connection pool and nothing else. It never creates or alters
 * schema (that is `migrate`), and being connected is not readiness (that is `checkReadiness`).
 */
export interface ScyllaSession {
  readonly client: Client;
  readonly config: ScyllaConfig;
  close(): Promise<void>;
}

/** Connects to the cluster of `config`. Connection failures → `UnavailableError`. */
export async function connectSession(config: ScyllaConfig, tuning: ClientTuning = {}): Promise<ScyllaSession> {
  const client = createClient(config, tuning);
  try {
    await client.connect();
  } catch (err) {
    await releaseAfterFailedConnect(client);
    const wrongDc = unknownLocalDataCenter(err);
    if (wrongDc !== null)
      throw new InvalidInputError(`scylla local data center ${JSON.stringify(config.localDataCenter)} is unknown to the cluster: ${wrongDc}`, { cause: err });
    throw mapDriverError(err, 'CONNECT');
  }
  let closed: Promise<void> | null = null;
  return Object.freeze({
    client,
    config,
    close: () => (closed ??= client.shutdown()),
  });
}
