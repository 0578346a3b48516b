import type { Client } from 'cassandra-driver';
import { SchemaRefusedError } from '../schema/schema-refused-error';

/** What the wait needs of the driver: `client.metadata` of cassandra-driver has this method. */
export interface SchemaAgreementSource {
  checkSchemaAgreement(): Promise<boolean>;
}

export interface SchemaAgreementWait {
  /** Longest wait for every node to report one schema version (ms). */
  readonly boundMs: number;
  readonly pollMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits (bounded) until every node reports the same schema version. A cluster whose nodes disagree
 * (a node that came back with a stale schema and has not converged) would answer schema reads and
 * DDL inconsistently: migrate refuses to run on it instead of hanging or deciding from one node's
 * view, and the reason says what to do. `what` names the step for the message.
 */
export async function awaitSchemaAgreement(source: SchemaAgreementSource, what: string, wait: SchemaAgreementWait): Promise<void> {
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pollMs = wait.pollMs ?? 500;
  const deadline = now() + wait.boundMs;
  for (;;) {
    if (await source.checkSchemaAgreement()) return;
    if (now() >= deadline) {
      throw new SchemaRefusedError([
        `the cluster's nodes do not agree on one schema version ${what} (waited ${wait.boundMs} ms): ` +
          'wait until `nodetool describecluster` lists one schema version (restart a node that keeps a stale one), then start again',
      ]);
    }
    await sleep(pollMs);
  }
}

/**
 * The driver's `metadata.checkSchemaAgreement()` (present in cassandra-driver 4.x, missing from its
 * type declarations): compares the schema versions of the local and peer nodes.
 */
export function schemaAgreementOf(client: Client): SchemaAgreementSource {
  const metadata = client.metadata as unknown as Partial<SchemaAgreementSource>;
  if (typeof metadata.checkSchemaAgreement !== 'function')
    throw new Error('cassandra-driver: metadata.checkSchemaAgreement is missing (driver version changed?)');
  return { checkSchemaAgreement: () => metadata.checkSchemaAgreement!.call(metadata) };
}
