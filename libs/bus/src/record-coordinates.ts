import { InvariantViolationError } from '@qim/store-core';

/** Where one produced record landed. */
export interface RecordCoordinate {
  readonly topic: string;
  /** Kafka partition, 0 … 2^31−1. */
  readonly partition: number;
  /** Kafka offset of this very record (u64). */
  readonly offset: bigint;
}

/** One partition's answer in a produce response (kafkajs `RecordMetadata`). */
export interface PartitionAck {
  readonly topicName: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset?: string;
}

const OFFSET_RE = /^(0|[1-9][0-9]*)$/;

/**
 * The coordinate of each record of one produce request, in request order. A request carries one
 * record batch per partition, its records in request order, appended atomically at consecutive
 * offsets from the batch's base offset: so record i of partition p is at `base(p) + i`.
 * Throws (nothing is acknowledged) when a partition has no answer, more than one, an error code,
 * or a base offset that is not a non-negative integer.
 */
export function coordinatesOf(placed: readonly { readonly topic: string; readonly partition: number }[], acks: readonly PartitionAck[]): RecordCoordinate[] {
  const base = new Map<string, bigint>();
  for (const a of acks) {
    const at = `${a.topicName}/${a.partition}`;
    if (base.has(at)) throw new InvariantViolationError(`produce response answers ${at} twice`);
    if (a.errorCode !== 0) throw new InvariantViolationError(`produce response for ${at} has error code ${a.errorCode}`);
    if (a.baseOffset === undefined || !OFFSET_RE.test(a.baseOffset)) {
      throw new InvariantViolationError(`produce response for ${at} has base offset ${String(a.baseOffset)}`);
    }
    base.set(at, BigInt(a.baseOffset));
  }
  const next = new Map<string, bigint>();
  return placed.map(({ topic, partition }) => {
    const at = `${topic}/${partition}`;
    const b = base.get(at);
    if (b === undefined) throw new InvariantViolationError(`produce response has no answer for ${at}`);
    const i = next.get(at) ?? 0n;
    next.set(at, i + 1n);
    return { topic, partition, offset: b + i };
  });
}
