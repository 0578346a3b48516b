/**
 * A short, readable walk through the product against running services (tools/scenario/qim-local up),
 * through the typed client @qim/client: members added, messages sent, a history page, a mailbox sync
 * per member, a replayed send, a conflict, a non-member refused. Any other outcome fails the run.
 * Run: tools/scenario/qim-local scenario (bundles this file with esbuild). Reads QIM_SERVICE_TOKEN;
 * WRITER_URL / MAILBOX_URL default to the qim-local ports.
 */
import type { Id128, MailboxEntry } from '@qim/client';
import { QimClient, QimConflictError, QimForbiddenError, newId128 } from '@qim/client';

const token = process.env['QIM_SERVICE_TOKEN'];
if (!token) throw new Error('QIM_SERVICE_TOKEN is not set');

const tenant = newId128();
const conversation = newId128();
const people = { alice: newId128(), bob: newId128(), carol: newId128() };
const nameOf = new Map<Id128, string>(Object.entries(people).map(([k, v]) => [v, k]));
const client = new QimClient({
  writerUrl: process.env['WRITER_URL'] ?? 'http://127.0.0.1:18080',
  mailboxUrl: process.env['MAILBOX_URL'] ?? 'http://127.0.0.1:18081',
  token,
  tenantId: tenant,
});
const say = (line: string) => console.log(line);
const text = (body: Uint8Array) => Buffer.from(body).toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The whole mailbox of `user` (every page up to what the service has proven delivered). */
async function mailbox(user: Id128): Promise<{ entries: MailboxEntry[]; cursor: bigint | null }> {
  const entries: MailboxEntry[] = [];
  let cursor: bigint | null = null;
  for await (const page of client.as(user).sync()) {
    entries.push(...page.entries);
    cursor = page.nextAfter;
  }
  return { entries, cursor };
}

/** The error a call must fail with; anything else (a success included) ends the scenario. */
async function refusal<E extends Error>(call: Promise<unknown>, expected: new (...args: never[]) => E): Promise<E> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('error' in outcome && outcome.error instanceof expected) return outcome.error;
  const got = 'error' in outcome ? String(outcome.error) : JSON.stringify(outcome.value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  throw new Error(`expected ${expected.name}, got ${got}`);
}

async function main(): Promise<void> {
  say(`tenant ${tenant.slice(0, 8)}…, conversation ${conversation.slice(0, 8)}…`);
  const count = await client.addMembers(conversation, Object.values(people));
  say(`1. members added → ${count} member(s)`);

  const sends: [keyof typeof people, string][] = [
    ['alice', 'Hi all!'],
    ['bob', 'Hey Alice'],
    ['carol', 'Morning'],
  ];
  const firsts = [];
  for (const [who, msg] of sends) {
    const r = await client.as(people[who]).send({ conversationId: conversation, body: msg });
    firsts.push(r);
    say(`2. ${who} sends "${msg}" → seq ${r.seq} message ${r.messageId.slice(0, 12)}… replay=${r.replay}`);
  }

  const page = await client.as(people.bob).historyPage(conversation, { maxItems: 10 });
  say(`3. bob reads history (newest first): ${page.items.map((m) => `#${m.seq} ${nameOf.get(m.senderId)}: ${text(m.body)}`).join(' | ')}`);

  for (const [who, user] of Object.entries(people)) {
    let synced = await mailbox(user);
    for (let i = 0; i < 40 && synced.entries.length < sends.length; i++) {
      await sleep(500);
      synced = await mailbox(user);
    }
    if (synced.entries.length !== sends.length) throw new Error(`${who} synced ${synced.entries.length} entries, expected ${sends.length}`);
    const items = synced.entries.map((e) => `#${e.events[0]?.message?.seq} "${text(e.events[0]?.message?.body ?? new Uint8Array())}"`);
    say(`4. ${who} syncs the mailbox: ${items.join(', ')} (cursor ${synced.cursor})`);
  }

  const first = firsts[0]!;
  const replay = await client.as(people.alice).send({ conversationId: conversation, body: 'Hi all!', clientMessageId: first.clientMessageId });
  if (!replay.replay || replay.seq !== first.seq) throw new Error(`the repeated send was not a replay of seq ${first.seq}`);
  say(`5. alice retries her first send → seq ${replay.seq} replay=${replay.replay} (same answer, nothing new)`);

  const conflict = await refusal(
    client.as(people.alice).send({ conversationId: conversation, body: 'Something else', clientMessageId: first.clientMessageId }),
    QimConflictError,
  );
  say(`6. alice reuses that client id with other text → ${conflict.status} ${conflict.code}`);

  const outsider = await refusal(client.as(newId128()).send({ conversationId: conversation, body: 'let me in' }), QimForbiddenError);
  say(`7. a non-member tries to send → ${outsider.status} ${outsider.code}`);
}

main().catch((err: unknown) => {
  console.error(`scenario failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
