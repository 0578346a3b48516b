import type { CommitIntent, Id128, MessageStore, OutboxPublisher, Publication } from '@qim/store-core';
import { DurableMessageCommitter, ManualClock, UnavailableError } from '@qim/store-core';
import { HybridLogicalClock, LeaseLostError, MemoryMembership, memoryMessageBackend, MembershipAuthorizer, MessageIdSource, MessageSender, ServiceMetrics } from '@qim/service-kit';
import type { ReadinessCheck } from '@qim/service-kit';
import fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { writerApp } from '../app';

export const TOKEN = 'test-token-0123456789abcdef';
export const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;

/** Records what the committer published; `failing` makes the next publishes fail like a broker outage. */
export class RecordingPublisher implements OutboxPublisher {
  readonly published: CommitIntent[] = [];
  failing = false;
  async publish(intent: CommitIntent): Promise<Publication> {
    if (this.failing) throw new UnavailableError('broker unreachable');
    this.published.push(intent);
    return { topic: 'qim.messages', partition: 0, offset: BigInt(this.published.length - 1) };
  }
}

export interface WriterTestApp {
  readonly app: FastifyInstance;
  readonly store: MessageStore;
  readonly membership: MemoryMembership;
  readonly publisher: RecordingPublisher;
  readonly metrics: ServiceMetrics;
  leaseHeld: boolean;
}

/** The writer plugin over the Memory backend, in-process membership and a recording publisher. */
export async function writerTestApp(opts: { maxFanout?: number; readiness?: ReadinessCheck[] } = {}): Promise<WriterTestApp> {
  const clock = new ManualClock(1_700_000_000_000n);
  const store = memoryMessageBackend(clock).store;
  const membership = new MemoryMembership();
  const publisher = new RecordingPublisher();
  const metrics = new ServiceMetrics('writer', false);
  const ids = new MessageIdSource(new HybridLogicalClock(() => clock.nowMs()), 7);
  const t: WriterTestApp = { app: fastify({ logger: false, bodyLimit: 128 * 1024 }), store, membership, publisher, metrics, leaseHeld: true };
  const sender = new MessageSender({
    membership,
    committer: new DurableMessageCommitter(store, publisher),
    issueId: () => {
      if (!t.leaseHeld) throw new LeaseLostError('writer lease lost');
      return ids.next();
    },
    maxFanout: opts.maxFanout ?? 100,
    metrics,
  });
  await t.app.register(writerApp, {
    serviceToken: TOKEN,
    sender,
    store,
    membership,
    authorizer: new MembershipAuthorizer(membership),
    maxFanout: opts.maxFanout ?? 100,
    metrics,
    readiness: opts.readiness ?? [{ name: 'store', check: async () => ({ ok: true }) }],
  });
  await t.app.ready();
  return t;
}

export const headers = (tenant: Id128, user?: Id128, token = TOKEN): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-qim-tenant': tenant,
  ...(user ? { 'x-qim-user': user } : {}),
});
