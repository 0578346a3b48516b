import { describeMailboxStoreContract } from '@qim/store-contract/testing';
import { openRedisMailboxHarness } from '../testing/redis-mailbox-harness';

describeMailboxStoreContract('redis', openRedisMailboxHarness);
