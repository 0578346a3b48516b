import { JoinedMessageStore } from './message-parts';
import type { MessageParts } from './message-parts';
import type { MessageStore } from './message-store';

type PartName = keyof MessageParts;
type Forwarded = Exclude<keyof MessageStore, 'capabilities' | 'close'>;

/** The part each forwarded method belongs to. A method left out, or given a part without it, is a type error. */
const OWNER: { readonly [M in Forwarded]: { [P in PartName]: M extends keyof MessageParts[P] ? P : never }[PartName] } = {
  reserve: 'commits',
  putRecord: 'commits',
  markOutboxPublished: 'commits',
  markCommitted: 'commits',
  markPublishedAndCommitted: 'commits',
  loadCommit: 'commits',
  loadCommitForRequest: 'commits',
  scanRecoverableCommits: 'recovery',
  gcCommittedAuxiliary: 'housekeeping',
  gcExpiredHistory: 'housekeeping',
  historyPage: 'reads',
  conversationSummaries: 'reads',
};
const FORWARDED = Object.keys(OWNER) as Forwarded[];

interface Call {
  readonly part: PartName;
  readonly method: string;
  readonly args: unknown[];
  readonly self: unknown;
  readonly answer: Promise<unknown>;
}

/** Four fake parts that record every call (part, method, arguments, `this`) and answer with a fresh promise. */
function recordingParts(): { parts: MessageParts; calls: Call[] } {
  const calls: Call[] = [];
  const parts: Record<PartName, Record<string, unknown>> = { commits: {}, recovery: {}, housekeeping: {}, reads: {} };
  for (const method of FORWARDED) {
    const part = OWNER[method];
    parts[part][method] = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const answer = Promise.resolve({ answeredBy: `${part}.${method}` });
      calls.push({ part, method, args, self: this, answer });
      return answer;
    };
  }
  return { parts: parts as unknown as MessageParts, calls };
}

class TestStore extends JoinedMessageStore {
  readonly capabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });

  constructor(parts: MessageParts) {
    super(parts);
  }

  async close(): Promise<void> {}
}

describe('JoinedMessageStore', () => {
  it('implements every MessageStore method but capabilities and close, and nothing else', () => {
    const own = Object.getOwnPropertyNames(JoinedMessageStore.prototype).filter((n) => n !== 'constructor');
    expect(own.sort()).toEqual([...FORWARDED].sort());
  });

  it.each(FORWARDED)('%s forwards once to its part, with its arguments, and returns what the part returns', async (method) => {
    const { parts, calls } = recordingParts();
    const store = new TestStore(parts);
    const forward = JoinedMessageStore.prototype[method] as (...args: unknown[]) => Promise<unknown>;
    const args = Array.from({ length: forward.length }, (_, i) => ({ argument: i, of: method }));
    expect(args.length).toBeGreaterThan(0);

    const returned = forward.apply(store, args);

    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.part).toBe(OWNER[method]);
    expect(call.method).toBe(method);
    expect(call.self).toBe(parts[OWNER[method]]);
    expect(call.args).toHaveLength(args.length);
    call.args.forEach((a, i) => expect(a).toBe(args[i]));
    expect(returned).toBe(call.answer);
    await expect(returned).resolves.toEqual({ answeredBy: `${OWNER[method]}.${method}` });
  });

  it('passes a failure of the part through unchanged', async () => {
    const { parts } = recordingParts();
    const failure = new Error('part failed');
    const store = new TestStore({ ...parts, reads: { ...parts.reads, conversationSummaries: () => Promise.reject(failure) } });
    await expect(store.conversationSummaries({} as never, [])).rejects.toBe(failure);
    const thrown = new Error('thrown at once');
    const throwing = new TestStore({
      ...parts,
      recovery: {
        scanRecoverableCommits: () => {
          throw thrown;
        },
      },
    });
    expect(() => throwing.scanRecoverableCommits(1n, 1)).toThrow(thrown);
  });

  it('keeps the capabilities and close of the subclass', async () => {
    const store: MessageStore = new TestStore(recordingParts().parts);
    expect(store.capabilities).toEqual({ injectableClock: true, needsHousekeeping: true });
    await expect(store.close()).resolves.toBeUndefined();
  });
});
