import type { DispatchRecord, Id128, MailboxStore, MessageRecord } from '@qim/store-core';
import { ManualClock } from '@qim/store-core';
import { dispatchRecordsOf } from '@qim/bus';
import { MailboxReader, ServiceMetrics, ShardProcessor, memoryMailboxBackend } from '@qim/service-kit';
import type { ReadinessCheck } from '@qim/service-kit';

import fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { mailboxApp } from '../app';

export const TOKEN = 'test-token-0123456789abcdef';
export const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
export const SHARDS = 2;
export const EPOCH = 3;

export interface MailboxTestApp {
  readonly app: FastifyInstance;
  readonly clock: ManualClock;
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  /** Dispatches a message to its recipients as the router + shard workers would, at the next offsets. */
  deliver(record: MessageRecord, recipients: readonly Id128[]): Promise<DispatchRecord[]>;
}

/** The mailbox plugin over Memory stores; dispatch runs in-process through the real `ShardProcessor`. */
export async function mailboxTestApp(opts: { readiness?: ReadinessCheck[] } = {}): Promise<MailboxTestApp> {
  const clock = new ManualClock(1_700_000_000_000n);
  const metrics = new ServiceMetrics('mailbox', false);
  const backend = memoryMailboxBackend({ epoch: EPOCH, gc: { entryRetentionMs: 86_400_000n, dispatchGcDelayMs: 60_000n } }, clock);
  const storeFor = (shard: number): Promise<MailboxStore> => backend.storeFor(shard);
  const processors = new Map<number, ShardProcessor>();
  const offsets = new Map<number, bigint>();
  const app = fastify({ logger: false });
  await app.register(mailboxApp, {
    serviceToken: TOKEN,
    reader: new MailboxReader(storeFor, SHARDS, EPOCH),
    status: { status: async (shard: number) => ({ shard, lanes: [] }) },
    syncMaxLimit: 50,
    metrics,
    readiness: opts.readiness ?? [{ name: 'store', check: async () => ({ ok: true }) }],
  });
  await app.ready();
  return {
    app,
    clock,
    storeFor,
    async deliver(record, recipients) {
      const dispatches = dispatchRecordsOf({ record, recipients }, SHARDS);
      for (const d of dispatches) {
        let p = processors.get(d.shard);
        if (!p) processors.set(d.shard, (p = new ShardProcessor(d.shard, await storeFor(d.shard), { chunkSize: 2, metrics, now: () => Number(clock.nowMs()) })));
        const offset = offsets.get(d.shard) ?? 0n;
        await p.process(offset, d);
        offsets.set(d.shard, offset + 1n);
      }
      return dispatches;
    },
  };
}

export const headers = (tenant: Id128, user: Id128, token = TOKEN): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-qim-tenant': tenant,
  'x-qim-user': user,
});

export function messageRecord(tenantId: Id128, seq: bigint, senderId: Id128, createdAt: bigint): MessageRecord {
  return {
    tenantId,
    conversationId: hex(0xc0),
    seq,
    messageId: hex(0xe000 + Number(seq)),
    senderId,
    clientMessageId: hex(0xd000 + Number(seq)),
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: Buffer.from(`m${seq}`),
    createdAt,
    retention: { kind: 'default' },
  };
}
