import { describeMailboxStoreContract } from '@qim/store-contract/testing';
import { openRedisMailboxHarness } from '../testing/redis-mailbox-harness';

// Real Redis on a shared 2-core machine: a case may take longer than Jest's 5 s default.
jest.setTimeout(60_000);

describeMailboxStoreContract('redis', openRedisMailboxHarness);
