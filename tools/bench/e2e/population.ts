import { randomBytes } from 'node:crypto';
import type { Endpoints } from './bench-client';
import { benchClient, errorCode } from './bench-client';

export const rid = (): string => randomBytes(16).toString('hex');

export interface Conversation {
  readonly id: string;
  /** Members, each a sender and a recipient (every member has one syncing device). */
  readonly members: readonly string[];
}

export interface Population {
  readonly tenant: string;
  readonly conversations: readonly Conversation[];
  readonly users: readonly string[];
}

/** A fresh tenant with `count` conversations of `size` distinct new users each (`addMembers`, 1,000 at a time). */
export async function createPopulation(endpoints: Endpoints, size: number, count: number): Promise<Population> {
  const tenant = rid();
  const writer = benchClient(endpoints, 30_000, tenant);
  const conversations: Conversation[] = Array.from({ length: count }, () => ({ id: rid(), members: Array.from({ length: size }, rid) }));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < conversations.length) {
      const c = conversations[next++]!;
      // In requests of at most 1,000 members: the writer's body limit refuses 10,000 ids in one.
      for (let i = 0; i < c.members.length; i += 1_000) {
        await writer.addMembers(c.id, c.members.slice(i, i + 1_000)).catch((err: unknown) => {
          throw new Error(`adding ${size} members failed: ${errorCode(err)}: ${err instanceof Error ? err.message : String(err)}`);
        });
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { tenant, conversations, users: conversations.flatMap((c) => c.members) };
}
