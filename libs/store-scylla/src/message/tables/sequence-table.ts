import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/**
 * `conversation_sequence`: the highest seq issued in a conversation (`next`). Created by
 * `INSERT … next = k IF NOT EXISTS` (which issues seqs 1 … k), then moved by
 * `UPDATE … SET next = n + k IF next = n`, where k is the number of reserves waiting for a seq of
 * this conversation in the allocating process (grouped allocation, `sequence-allocator.ts`). No seq
 * is ever issued without a waiter (nothing is pre-leased); a seq whose reserve dies before its
 * completion is a hole, never reused.
 */
export const SEQUENCE_TABLE = defineTable({
  name: 'conversation_sequence',
  create: `CREATE TABLE IF NOT EXISTS {ks}.conversation_sequence (
    tenant_id blob, conversation_id blob, next bigint,
    PRIMARY KEY ((tenant_id, conversation_id))
  ) WITH default_time_to_live = 0`,
  columns: { tenant_id: 'blob', conversation_id: 'blob', next: 'bigint' },
  addable: [],
});

const KEY = 'tenant_id = ? AND conversation_id = ?';

export const SEQUENCE_CQL = Object.freeze({
  select: named('sequence.select', `SELECT next FROM {ks}.conversation_sequence WHERE ${KEY}`, { profile: 'read', idempotent: true }),
  init: named('sequence.init', `INSERT INTO {ks}.conversation_sequence (tenant_id, conversation_id, next) VALUES (?, ?, ?) IF NOT EXISTS`, {
    profile: 'lwt',
    idempotent: false,
  }),
  step: named('sequence.step', `UPDATE {ks}.conversation_sequence SET next = ? WHERE ${KEY} IF next = ?`, { profile: 'lwt', idempotent: false }),
});
