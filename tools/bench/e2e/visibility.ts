/**
 * Send → visible-in-every-recipient tracking. A message is registered when its send is answered
 * (with the send's start time); each device reports the message ids it synced. A device may see a
 * message before its send is answered, so early sightings are kept until the registration.
 */
export class Visibility {
  private readonly pending = new Map<string, { t0: number; waiting: Set<string> }>();
  private readonly early = new Map<string, Set<string>>();
  /** ms from send start until the last recipient saw the message. */
  readonly latencies: number[] = [];
  /** Each latency's send start (`performance.now()`), same order: the phase's timeline. */
  readonly sentAt: number[] = [];
  /** When the last message of the current phase became fully visible. */
  lastVisibleAt = 0;

  expect(messageId: string, t0: number, recipients: readonly string[]): void {
    const seen = this.early.get(messageId);
    this.early.delete(messageId);
    const waiting = new Set(recipients.filter((r) => !seen?.has(r)));
    if (waiting.size === 0) this.done(t0, performance.now());
    else this.pending.set(messageId, { t0, waiting });
  }

  seen(user: string, messageId: string, now: number): void {
    const p = this.pending.get(messageId);
    if (!p) {
      const s = this.early.get(messageId) ?? new Set<string>();
      s.add(user);
      this.early.set(messageId, s);
      return;
    }
    p.waiting.delete(user);
    if (p.waiting.size === 0) {
      this.pending.delete(messageId);
      this.done(p.t0, now);
    }
  }

  /** Messages accepted but not yet visible to every recipient. */
  get outstanding(): number {
    return this.pending.size;
  }

  /** Starts a new phase: returns what the previous one left unseen and forgets it. */
  reset(): number {
    const left = this.pending.size;
    this.pending.clear();
    this.early.clear();
    this.latencies.length = 0;
    this.sentAt.length = 0;
    this.lastVisibleAt = 0;
    return left;
  }

  private done(t0: number, now: number): void {
    this.latencies.push(now - t0);
    this.sentAt.push(t0);
    this.lastVisibleAt = now;
  }
}
