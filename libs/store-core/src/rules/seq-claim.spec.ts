import { ConflictError } from '../errors/domain-errors';
import type { Id128 } from '../model/ids';
import { requestIdentity } from '../codecs/send-request';
import { SAMPLE_SEND_REQUEST } from '../testing/sample-request';
import { COMMIT_STEP_TEXTS } from './commit-steps';
import { decideSeqClaim, reservedIntentOf } from './seq-claim';

const id = (n: number): Id128 => n.toString(16).padStart(32, '0') as Id128;
const request = SAMPLE_SEND_REQUEST;
const identity = requestIdentity(request);

function refusal(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal');
}

describe('seq claim rule', () => {
  const claim = { identity, seq: 7n, messageId: id(70), createdAt: 1_000n };

  it('allocates without a claim, adopts the claim of the same request, refuses another request', () => {
    expect(decideSeqClaim(null, identity)).toBe('allocate');
    expect(decideSeqClaim(claim, Buffer.from(identity))).toBe('adopt');
    const e = refusal(() => decideSeqClaim({ ...claim, identity: Buffer.alloc(32) }, identity));
    expect(e).toBeInstanceOf(ConflictError);
    expect(e.message).toBe(`reserve: ${COMMIT_STEP_TEXTS.otherRequest}`);
  });

  it('builds the RESERVED intent from the request, its recipients and the claim', () => {
    expect(reservedIntentOf(request, identity, [id(2)], claim)).toEqual({
      key: { tenantId: id(1), senderId: id(2), clientMessageId: id(3) },
      identity,
      request,
      seq: 7n,
      messageId: id(70),
      createdAt: 1_000n,
      recipients: [id(2)],
      publication: null,
    });
  });
});
