import type { CommitIntent, Id128, MembershipDirectory, MessageReads, MessageStore, OutboxPublisher, Publication } from '@qim/store-core';
import { DurableMessageCommitter, UnavailableError } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { LeaseLostError, ReadBudget, serviceServerOptions } from '@qim/service-kit';
import { memoryCoordination, memoryMessageBackend } from '@qim/backends';
import { DeadlineSender, HybridLogicalClock, MembershipAuthorizer, MessageIdSource, MessageSender, WriterMetrics, replayAnswer } from '@qim/writer-runtime';
import type { ReadinessCheck } from '@qim/service-kit';
import fastify from 'fastify';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { writerApp } from '../app';
import type { WriterAppOptions } from '../app';

export const TOKEN = 'test-token-0123456789abcdef';
export const hex = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;

/**
 * Records what the committer published; `failing` makes the next publishes fail like a broker
 * outage; `hold()` makes them wait (like a stalled broker) until `release()`.
 */
export class RecordingPublisher implements OutboxPublisher {
  readonly published: CommitIntent[] = [];
  failing = false;
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = null;
    this.open();
  }

  async publish(intent: CommitIntent): Promise<Publication> {
    if (this.gate) await this.gate;
    if (this.failing) throw new UnavailableError('broker 10.9.8.7:9092 unreachable');
    this.published.push(intent);
    return { topic: 'qim.messages', partition: 0, offset: BigInt(this.published.length - 1) };
  }
}

export interface WriterTestApp {
  readonly app: FastifyInstance;
  readonly store: MessageStore;
  readonly clock: ManualClock;
  readonly membership: MembershipDirectory;
  readonly publisher: RecordingPublisher;
  readonly metrics: WriterMetrics;
  /** Error-level log lines (parsed JSON) the app wrote. */
  readonly errorLog: Record<string, unknown>[];
  leaseHeld: boolean;
  /** Makes the app's history reads wait (as a slow store would) until the returned release is called. */
  holdHistoryReads(): () => void;
}

export interface WriterTestOptions {
  readonly maxFanout?: number;
  readonly readiness?: ReadinessCheck[];
  /** Default 10 000 ms, as in production. */
  readonly sendDeadlineMs?: number;
  /** Default: in-process membership. */
  readonly membership?: MembershipDirectory;
  /** Listen on 127.0.0.1 (a free port) instead of answering `inject` only. */
  readonly listen?: boolean;
  /** Receives every route the app registers (as an `onRoute` hook sees it). */
  readonly routes?: RouteOptions[];
  /** The process's read budget (default: 64 MiB, no wait, as `QIM_READ_BUDGET_*` with a 0 wait). */
  readonly readBudget?: ReadBudget;
  /** `POST /v1/messages/batch` bounds (default 100 sends, 4 MiB, as in production). */
  readonly sendBatch?: WriterAppOptions['sendBatch'];
}

/** The writer plugin over the Memory backend, in-process membership and a recording publisher, with the process's server options. */
export async function writerTestApp(opts: WriterTestOptions = {}): Promise<WriterTestApp> {
  const clock = new ManualClock(1_700_000_000_000n);
  const store = memoryMessageBackend(clock).store;
  const membership = opts.membership ?? memoryCoordination('writer-test-app').membership;
  const publisher = new RecordingPublisher();
  const metrics = new WriterMetrics(false);
  const ids = new MessageIdSource(new HybridLogicalClock(() => clock.nowMs()), 7);
  const errorLog: Record<string, unknown>[] = [];
  const logStream = { write: (line: string) => void errorLog.push(JSON.parse(line) as Record<string, unknown>) };
  const app = fastify(serviceServerOptions({ service: 'writer', logLevel: 'error', bodyLimit: 128 * 1024, requestTimeoutMs: 30_000, logStream }));
  if (opts.routes) app.addHook('onRoute', (r) => void opts.routes!.push(r));
  let held: Promise<void> | null = null;
  const t: WriterTestApp = {
    app,
    store,
    clock,
    membership,
    publisher,
    metrics,
    errorLog,
    leaseHeld: true,
    holdHistoryReads() {
      let release = (): void => undefined;
      held = new Promise((r) => (release = r));
      return () => {
        held = null;
        release();
      };
    },
  };
  // The app's reads: history reads wait while `holdHistoryReads` holds them (looked up per call, so a spy on `store` sees them).
  const appStore: MessageReads = {
    historyPage: async (...args) => {
      if (held) await held;
      return store.historyPage(...args);
    },
    conversationSummaries: (...args) => store.conversationSummaries(...args),
  };
  const committer = new DurableMessageCommitter(store, publisher, metrics.commitSteps);
  const sender = new MessageSender({
    membership,
    committer,
    issueId: () => {
      if (!t.leaseHeld) throw new LeaseLostError('writer lease lost');
      return ids.next();
    },
    maxFanout: opts.maxFanout ?? 100,
    metrics,
    replayOf: (request) => replayAnswer(store, committer, request),
  });
  await t.app.register(writerApp, {
    serviceTokens: [TOKEN],
    sender: new DeadlineSender(sender, opts.sendDeadlineMs ?? 10_000, () => metrics.sendDeadlineExceeded.inc()),
    store: appStore,
    membership,
    authorizer: new MembershipAuthorizer(membership),
    maxFanout: opts.maxFanout ?? 100,
    sendBatch: opts.sendBatch ?? { maxItems: 100, bodyLimit: 4 * 1024 * 1024 },
    readBudget: opts.readBudget ?? new ReadBudget({ totalBytes: 64 * 1024 * 1024, waitMs: 0 }),
    metrics,
    readiness: opts.readiness ?? [{ name: 'store', check: async () => ({ ok: true }) }],
  });
  if (opts.listen) await t.app.listen({ host: '127.0.0.1', port: 0 });
  else await t.app.ready();
  return t;
}

export const headers = (tenant: Id128, user?: Id128, token = TOKEN): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-qim-tenant': tenant,
  ...(user ? { 'x-qim-user': user } : {}),
});
