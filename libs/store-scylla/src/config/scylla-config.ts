import { InvalidInputError } from '@qim/store-core';

/** `[a-z][a-z0-9_]{0,47}`: the only keyspace names the backend accepts (interpolated into DDL/CQL). */
export const KEYSPACE_RE = /^[a-z][a-z0-9_]{0,47}$/;

/** The smallest replication factor a production deployment may use. */
export const PRODUCTION_MIN_RF = 3;

/** How a configuration was made: production (RF ≥ 3) or an explicit test/development setup (RF ≥ 1). */
export type ScyllaConfigMode = 'production' | 'test';

/**
 * Explicit connection and placement facts of the Scylla backend. Nothing else is configurable:
 * consistency levels, profiles and table names belong to the backend.
 */
export interface ScyllaConfig {
  /** `host` or `host:port` contact points (at least one). */
  readonly contactPoints: readonly string[];
  /** Keyspace holding every table of the backend. */
  readonly keyspace: string;
  /** The local data center: the driver routes to it and `migrate`/readiness check its RF. */
  readonly localDataCenter: string;
  /** Replication factor of `localDataCenter` (NetworkTopologyStrategy). */
  readonly replicationFactor: number;
  readonly mode: ScyllaConfigMode;
}

export interface ScyllaConfigInput {
  readonly contactPoints: readonly string[];
  readonly keyspace: string;
  readonly localDataCenter: string;
  readonly replicationFactor: number;
}

const CONTACT_POINT_RE = /^[A-Za-z0-9._\-:[\]]+$/;

function build(input: ScyllaConfigInput, mode: ScyllaConfigMode, minRf: number): ScyllaConfig {
  const points = input.contactPoints.map((p) => p.trim());
  if (points.length === 0 || points.some((p) => p === '' || !CONTACT_POINT_RE.test(p))) {
    throw new InvalidInputError(`scylla contact points must be non-empty host or host:port values: ${JSON.stringify(input.contactPoints)}`);
  }
  if (!KEYSPACE_RE.test(input.keyspace)) {
    throw new InvalidInputError(`scylla keyspace ${JSON.stringify(input.keyspace)} must match ${KEYSPACE_RE.source}`);
  }
  if (typeof input.localDataCenter !== 'string' || input.localDataCenter.trim() === '') {
    throw new InvalidInputError('scylla local data center must be non-empty');
  }
  if (!Number.isInteger(input.replicationFactor) || input.replicationFactor < minRf || input.replicationFactor > 99) {
    throw new InvalidInputError(`scylla replication factor must be an integer ${minRf}…99 in ${mode} mode, got ${input.replicationFactor}`);
  }
  return Object.freeze({
    contactPoints: Object.freeze(points),
    keyspace: input.keyspace,
    localDataCenter: input.localDataCenter,
    replicationFactor: input.replicationFactor,
    mode,
  });
}

/** Production configuration: RF ≥ 3, non-empty DC, valid keyspace. Violations → `InvalidInputError`. */
export function productionScyllaConfig(input: ScyllaConfigInput): ScyllaConfig {
  return build(input, 'production', PRODUCTION_MIN_RF);
}

/** Explicit test/development configuration: the same checks, but RF 1 is allowed. */
export function developmentScyllaConfig(input: ScyllaConfigInput): ScyllaConfig {
  return build(input, 'test', 1);
}
