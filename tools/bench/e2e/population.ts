import { randomBytes } from 'node:crypto';
import type { HttpClient } from './http-client';
import { errorCode } from './http-client';

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

/** A fresh tenant with `count` conversations of `size` distinct new users each (PUT members). */
export async function createPopulation(writer: HttpClient, size: number, count: number): Promise<Population> {
  const tenant = rid();
  const conversations: Conversation[] = Array.from({ length: count }, () => ({ id: rid(), members: Array.from({ length: size }, rid) }));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < conversations.length) {
      const c = conversations[next++]!;
      const a = await writer.call('PUT', `/v1/conversations/${c.id}/members`, { tenant }, { members: c.members });
      if (a.status !== 200) throw new Error(`adding ${size} members failed: ${errorCode(a)} ${JSON.stringify(a.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { tenant, conversations, users: conversations.flatMap((c) => c.members) };
}
