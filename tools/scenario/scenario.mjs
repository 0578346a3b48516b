// A short, readable walk through the product against running services (tools/scenario/qim-local up):
// members added, messages sent, a history page, a mailbox sync per member, a replayed send, a conflict.
// Reads QIM_SERVICE_TOKEN; WRITER_URL / MAILBOX_URL default to the qim-local ports.
import { randomBytes } from 'node:crypto';

const writer = process.env.WRITER_URL ?? 'http://127.0.0.1:18080';
const mailbox = process.env.MAILBOX_URL ?? 'http://127.0.0.1:18081';
const token = process.env.QIM_SERVICE_TOKEN;
if (!token) throw new Error('QIM_SERVICE_TOKEN is not set');

const id = () => randomBytes(16).toString('hex');
const tenant = id();
const conversation = id();
const people = { alice: id(), bob: id(), carol: id() };
const name = Object.fromEntries(Object.entries(people).map(([k, v]) => [v, k]));

async function call(base, method, path, user, body) {
  const headers = { authorization: `Bearer ${token}`, 'x-qim-tenant': tenant };
  if (user) headers['x-qim-user'] = user;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}
const say = (line) => console.log(line);
const text = (b64) => Buffer.from(b64, 'base64').toString();

say(`tenant ${tenant.slice(0, 8)}…, conversation ${conversation.slice(0, 8)}…`);
const added = await call(writer, 'PUT', `/v1/conversations/${conversation}/members`, null, { members: Object.values(people) });
say(`1. members added → ${added.status} ${JSON.stringify(added.body)}`);

const sends = [
  ['alice', 'Hi all!'],
  ['bob', 'Hey Alice'],
  ['carol', 'Morning'],
];
const clientIds = [];
for (const [who, msg] of sends) {
  const clientId = id();
  clientIds.push(clientId);
  const r = await call(writer, 'POST', '/v1/messages', people[who], { client_message_id: clientId, conversation_id: conversation, body: Buffer.from(msg).toString('base64') });
  say(`2. ${who} sends "${msg}" → ${r.status} seq ${r.body.seq} message ${r.body.message_id?.slice(0, 12)}… replay=${r.body.replay}`);
}

const page = await call(writer, 'GET', `/v1/conversations/${conversation}/messages?max_items=10`, people.bob);
say(`3. bob reads history (newest first): ${page.body.items.map((m) => `#${m.seq} ${name[m.sender_id]}: ${text(m.body)}`).join(' | ')}`);

await new Promise((r) => setTimeout(r, 1500));
for (const [who, user] of Object.entries(people)) {
  let sync = await call(mailbox, 'GET', `/v1/mailboxes/${user}/entries`, user);
  for (let i = 0; i < 20 && sync.status === 200 && sync.body.entries.length < sends.length; i++) {
    await new Promise((r) => setTimeout(r, 500));
    sync = await call(mailbox, 'GET', `/v1/mailboxes/${user}/entries`, user);
  }
  const items = sync.body.entries.map((e) => `#${e.events[0].message.seq} "${text(e.events[0].message.body)}"`);
  say(`4. ${who} syncs the mailbox → ${sync.status}: ${items.join(', ')} (next_after ${sync.body.next_after})`);
}

const replay = await call(writer, 'POST', '/v1/messages', people.alice, { client_message_id: clientIds[0], conversation_id: conversation, body: Buffer.from('Hi all!').toString('base64') });
say(`5. alice retries her first send → ${replay.status} seq ${replay.body.seq} replay=${replay.body.replay} (same answer, nothing new)`);

const conflict = await call(writer, 'POST', '/v1/messages', people.alice, { client_message_id: clientIds[0], conversation_id: conversation, body: Buffer.from('Something else').toString('base64') });
say(`6. alice reuses that client id with other text → ${conflict.status} ${conflict.body.code}`);

const outsider = await call(writer, 'POST', '/v1/messages', id(), { client_message_id: id(), conversation_id: conversation, body: Buffer.from('let me in').toString('base64') });
say(`7. a non-member tries to send → ${outsider.status} ${outsider.body.code}`);
