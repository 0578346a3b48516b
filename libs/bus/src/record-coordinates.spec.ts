import { InvariantViolationError } from '@qim/store-core';
import { coordinatesOf } from './record-coordinates';

const ack = (partition: number, baseOffset: string | undefined, errorCode = 0, topicName = 't') => ({ topicName, partition, errorCode, baseOffset });

describe('coordinatesOf', () => {
  it('gives record i of a partition the offset base + i, in request order, across partitions and topics', () => {
    const placed = [
      { topic: 't', partition: 1 },
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
      { topic: 'u', partition: 1 },
      { topic: 't', partition: 1 },
    ];
    const out = coordinatesOf(placed, [ack(0, '7'), ack(1, '40'), ack(1, '9000000000000000000', 0, 'u')]);
    expect(out).toEqual([
      { topic: 't', partition: 1, offset: 40n },
      { topic: 't', partition: 0, offset: 7n },
      { topic: 't', partition: 1, offset: 41n },
      { topic: 'u', partition: 1, offset: 9_000_000_000_000_000_000n },
      { topic: 't', partition: 1, offset: 42n },
    ]);
  });

  it.each([
    ['a partition without an answer', [ack(0, '1')]],
    ['an error code', [ack(0, '1'), ack(1, '5', 19)]],
    ['a missing base offset', [ack(0, '1'), ack(1, undefined)]],
    ['a negative base offset', [ack(0, '1'), ack(1, '-1')]],
    ['a partition answered twice', [ack(0, '1'), ack(1, '5'), ack(1, '6')]],
  ])('acknowledges nothing on %s', (_what, acks) => {
    expect(() =>
      coordinatesOf(
        [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 1 },
        ],
        acks,
      ),
    ).toThrow(InvariantViolationError);
  });
});
