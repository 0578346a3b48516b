import { takeCount } from './group-commit-producer';

const unit = (records: number, bytes: number) => ({
  records: Array.from({ length: records }, () => ({ topic: 't', key: null, value: Buffer.alloc(0) })),
  bytes,
});

describe('takeCount (how many queued units one produce request carries)', () => {
  const limits = { maxRecords: 10, maxBytes: 1_000 };

  it('takes every unit while both limits hold', () => {
    expect(takeCount([unit(3, 100), unit(3, 100), unit(4, 800)], limits)).toBe(3);
  });

  it('stops before the unit that would exceed the record limit', () => {
    expect(takeCount([unit(6, 10), unit(5, 10), unit(1, 10)], limits)).toBe(1);
  });

  it('stops before the unit that would exceed the byte limit, keeping call order (no unit skipped ahead)', () => {
    expect(takeCount([unit(1, 600), unit(1, 500), unit(1, 10)], limits)).toBe(1);
  });

  it('sends a unit larger than the limits alone', () => {
    expect(takeCount([unit(50, 5_000), unit(1, 1)], limits)).toBe(1);
  });

  it('takes nothing from an empty queue', () => {
    expect(takeCount([], limits)).toBe(0);
  });
});
