import type { DeliveryLag } from '@qim/bus';
import type { SendOutcome, SendRequest } from '@qim/store-core';
import { AdmissionGate, AdmissionRefusedError, AdmissionSender, PROBE_FAILURES_TO_OPEN, admissionDrainAfterMs, effectiveLagMs } from './admission';

const lag = (ageMs: number, drainMs = 0): DeliveryLag => ({ ageMs, drainMs, groups: [] });

/** A probe answering the scripted reads in order (an Error is thrown), then the last one again. */
function scripted(...reads: (number | Error)[]) {
  let i = 0;
  return {
    reads: () => i,
    read: async (): Promise<DeliveryLag> => {
      const r = reads[Math.min(i++, reads.length - 1)]!;
      if (r instanceof Error) throw r;
      return lag(r);
    },
  };
}

const settled = async <T>(p: Promise<T>): Promise<'pending' | 'resolved' | 'rejected'> => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await new Promise((r) => setImmediate(r));
  return state;
};

describe('effectiveLagMs', () => {
  it('is the age while the age is below a quarter of the bound (consumers keeping up), else the larger of age and drain', () => {
    expect(effectiveLagMs(lag(2_499, 60_000), 10_000)).toBe(2_499);
    expect(effectiveLagMs(lag(2_500, 60_000), 10_000)).toBe(60_000);
    expect(effectiveLagMs(lag(12_000, 3_000), 10_000)).toBe(12_000);
    expect(effectiveLagMs(lag(0, 0), 10_000)).toBe(0);
    // with the drain counted only from 8 s of age: a partition that just stopped (tiny pace) does not close the gate
    expect(effectiveLagMs(lag(4_300, 62_744), 10_000, 8_000)).toBe(4_300);
    expect(effectiveLagMs(lag(8_000, 62_744), 10_000, 8_000)).toBe(62_744);
  });

  it('counts the drain only once a stall can have been recognised', () => {
    expect(admissionDrainAfterMs({ maxLagMs: 10_000, stallMs: 5_000, pollMs: 500 })).toBe(8_000);
    expect(admissionDrainAfterMs({ maxLagMs: 100_000, stallMs: 1_000, pollMs: 500 })).toBe(25_000);
  });
});

describe('AdmissionGate', () => {
  it('closes on the drain time of a real backlog before its oldest record is old, and ignores it while the consumers keep up', async () => {
    const probe = {
      reads: [lag(300, 40_000), lag(3_000, 40_000)],
      read: async () => probe.reads.shift()!,
    };
    const gate = new AdmissionGate({ maxLagMs: 10_000, pollMs: 50, waitMs: 1_000, probe });
    await gate.poll();
    expect(gate.state()).toMatchObject({ closed: false, lagMs: 300 });
    await gate.poll();
    expect(gate.state()).toMatchObject({ closed: true, lagMs: 40_000 });
  });

  it('admits at once while delivery is within the bound', async () => {
    const gate = new AdmissionGate({ maxLagMs: 1_000, pollMs: 50, waitMs: 1_000, probe: scripted(0, 1_000) });
    await gate.poll();
    await gate.poll();
    expect(gate.state()).toEqual({ closed: false, lagMs: 1_000, waiting: 0 });
    expect(await settled(gate.admit())).toBe('resolved');
  });

  it('closes above the bound, holds sends, and lets every one through once the lag is down to half', async () => {
    const changes: boolean[] = [];
    const waited: string[] = [];
    const gate = new AdmissionGate({
      maxLagMs: 1_000,
      pollMs: 50,
      waitMs: 60_000,
      probe: scripted(1_001, 800, 500),
      onChange: (c) => void changes.push(c),
      onWaited: (o) => void waited.push(o),
    });
    await gate.poll();
    expect(gate.state().closed).toBe(true);
    const held = [gate.admit(), gate.admit()];
    expect(await settled(held[0]!)).toBe('pending');
    expect(gate.state().waiting).toBe(2);
    await gate.poll(); // 800: below the bound but above half — still closed (no flapping at the bound)
    expect(await settled(held[1]!)).toBe('pending');
    await gate.poll(); // 500: half — open
    await expect(Promise.all(held)).resolves.toEqual([undefined, undefined]);
    expect(gate.state()).toEqual({ closed: false, lagMs: 500, waiting: 0 });
    expect(changes).toEqual([true, false]);
    expect(waited).toEqual(['admitted', 'admitted']);
    await gate.admit();
    expect(waited).toHaveLength(2);
  });

  it('refuses a send that waited waitMs at a closed gate, with a typed 503 that says nothing was written', async () => {
    const waited: string[] = [];
    const gate = new AdmissionGate({ maxLagMs: 1_000, pollMs: 50, waitMs: 30, probe: scripted(4_000), onWaited: (o) => void waited.push(o) });
    await gate.poll();
    const t0 = Date.now();
    const err = await gate.admit().catch((e: unknown) => e);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(err).toBeInstanceOf(AdmissionRefusedError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE' });
    expect((err as AdmissionRefusedError).publicMessage).toMatch(/4 s behind.*nothing was written: retry later with the same client_message_id/);
    expect(gate.state().waiting).toBe(0);
    expect(waited).toEqual(['refused']);
  });

  it(`opens after ${PROBE_FAILURES_TO_OPEN} failed reads in a row (fail open), not after fewer`, async () => {
    const errors: number[] = [];
    const gate = new AdmissionGate({
      maxLagMs: 1_000,
      pollMs: 50,
      waitMs: 60_000,
      probe: scripted(5_000, new Error('a'), new Error('b'), 5_000, new Error('c'), new Error('d'), new Error('e')),
      onProbeError: (_e, n) => void errors.push(n),
    });
    await gate.poll();
    const held = gate.admit();
    await gate.poll();
    await gate.poll();
    expect(gate.state().closed).toBe(true);
    await gate.poll(); // a good read resets the count
    await gate.poll();
    await gate.poll();
    expect(await settled(held)).toBe('pending');
    await gate.poll();
    await expect(held).resolves.toBeUndefined();
    expect(gate.state().closed).toBe(false);
    expect(errors).toEqual([1, 2, 1, 2, 3]);
  });

  it('polls on its own every pollMs once started, and stop opens the gate', async () => {
    const probe = scripted(9_000);
    const gate = new AdmissionGate({ maxLagMs: 1_000, pollMs: 20, waitMs: 60_000, probe });
    gate.start();
    // Three reads nobody asked for, however late a loaded machine fires the timer (not: 3 reads within 130 ms).
    while (probe.reads() < 3) await new Promise((r) => setTimeout(r, 5));
    expect(gate.state().closed).toBe(true);
    const held = gate.admit();
    await gate.stop();
    await expect(held).resolves.toBeUndefined();
    const after = probe.reads();
    await new Promise((r) => setTimeout(r, 60));
    expect(probe.reads()).toBe(after);
  });

  it('refuses bounds that are not positive integers (waitMs may be 0)', () => {
    const probe = scripted(0);
    expect(() => new AdmissionGate({ maxLagMs: 0, pollMs: 10, waitMs: 0, probe })).toThrow(RangeError);
    expect(() => new AdmissionGate({ maxLagMs: 10, pollMs: 0, waitMs: 0, probe })).toThrow(RangeError);
    expect(() => new AdmissionGate({ maxLagMs: 10, pollMs: 10, waitMs: -1, probe })).toThrow(RangeError);
    expect(() => new AdmissionGate({ maxLagMs: 10, pollMs: 10, waitMs: 0, probe })).not.toThrow();
  });
});

describe('AdmissionSender', () => {
  it('starts no send before the gate admits it, and none at all when it is refused', async () => {
    const started: SendRequest[] = [];
    const inner = { send: async (r: SendRequest) => (started.push(r), { seq: 1n } as unknown as SendOutcome) };
    let admit!: () => void;
    const gate = { admit: () => new Promise<void>((r) => (admit = r)) };
    const request = { clientMessageId: 'a' } as unknown as SendRequest;
    const sending = new AdmissionSender(inner, gate).send(request);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([]);
    admit();
    await expect(sending).resolves.toEqual({ seq: 1n });
    expect(started).toEqual([request]);

    const refusing = { admit: () => Promise.reject(new AdmissionRefusedError(5_000, 1_000, 10)) };
    await expect(new AdmissionSender(inner, refusing).send(request)).rejects.toBeInstanceOf(AdmissionRefusedError);
    expect(started).toHaveLength(1);
  });
});

describe('AdmissionGate: light sends at a closed gate (fan-out cost, ADR-0023 decision 10)', () => {
  const closedGate = async (opts: { maxFanout: number; entriesPerSecond: number } | null, now?: () => number, waitMs = 40) => {
    const waited: string[] = [];
    const gate = new AdmissionGate({ maxLagMs: 1_000, pollMs: 50, waitMs, probe: scripted(5_000), light: opts, now, onWaited: (o) => void waited.push(o) });
    await gate.poll();
    expect(gate.state().closed).toBe(true);
    return { gate, waited };
  };

  it('lets a send to a small conversation through at once while the gate holds and refuses one to a huge conversation', async () => {
    const { gate, waited } = await closedGate({ maxFanout: 20, entriesPerSecond: 1_000 });
    expect(await settled(gate.admit(async () => 3))).toBe('resolved');
    const heavy = gate.admit(async () => 10_000);
    expect(await settled(heavy)).toBe('pending');
    await expect(heavy).rejects.toBeInstanceOf(AdmissionRefusedError);
    expect(waited).toEqual(['light', 'refused']);
  });

  it('spends at most entriesPerSecond mailbox entries a second on light sends; beyond the budget they wait like the others', async () => {
    let t = 0;
    const { gate, waited } = await closedGate({ maxFanout: 5, entriesPerSecond: 10 }, () => t, 60_000);
    const light = () => gate.admit(async () => 3);
    expect(await settled(light())).toBe('resolved');
    expect(await settled(light())).toBe('resolved');
    expect(await settled(light())).toBe('resolved');
    const fourth = light(); // 9 of 10 entries spent: 3 more do not fit
    expect(await settled(fourth)).toBe('pending');
    t = 1_000; // a second later the budget is full again, for new sends (the held one waits for the gate)
    expect(await settled(light())).toBe('resolved');
    expect(await settled(fourth)).toBe('pending');
    await gate.stop();
    await expect(fourth).resolves.toBeUndefined();
    expect(waited).toEqual(['light', 'light', 'light', 'light', 'admitted']);
  });

  it('treats a send whose fan-out cannot be read as heavy (it waits)', async () => {
    const { gate } = await closedGate({ maxFanout: 20, entriesPerSecond: 1_000 });
    const p = gate.admit(async () => {
      throw new Error('membership read failed');
    });
    expect(await settled(p)).toBe('pending');
    await expect(p).rejects.toBeInstanceOf(AdmissionRefusedError);
  });

  it('does not read the fan-out while the gate is open, and holds every send when the light lane is off', async () => {
    const gate = new AdmissionGate({ maxLagMs: 1_000, pollMs: 50, waitMs: 40, probe: scripted(0), light: { maxFanout: 20, entriesPerSecond: 1_000 } });
    await gate.poll();
    let reads = 0;
    await gate.admit(async () => (reads++, 3));
    expect(reads).toBe(0);
    const off = await closedGate(null);
    const small = off.gate.admit(async () => 2);
    expect(await settled(small)).toBe('pending');
    await expect(small).rejects.toBeInstanceOf(AdmissionRefusedError);
  });

  it('refuses a light lane that is not made of positive integers', () => {
    const probe = scripted(0);
    expect(() => new AdmissionGate({ maxLagMs: 10, pollMs: 10, waitMs: 0, probe, light: { maxFanout: 0, entriesPerSecond: 10 } })).toThrow(RangeError);
    expect(() => new AdmissionGate({ maxLagMs: 10, pollMs: 10, waitMs: 0, probe, light: { maxFanout: 3, entriesPerSecond: 2 } })).toThrow(RangeError);
  });
});

describe('AdmissionSender with a fan-out reader', () => {
  it('asks the gate with the conversation of the request', async () => {
    const asked: string[] = [];
    const inner = { send: async () => ({ seq: 1n }) as unknown as SendOutcome };
    const gate = { admit: async (fanout?: () => Promise<number>) => void asked.push(String(await fanout?.())) };
    const sender = new AdmissionSender(inner, gate, async (r) => (r.conversationId === 'c1' ? 7 : 0));
    await sender.send({ conversationId: 'c1' } as unknown as SendRequest);
    expect(asked).toEqual(['7']);
  });
});
