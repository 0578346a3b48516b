import { describeCommitterContract, describeMessageStoreContract } from '@qim/store-contract/testing';
import { openRedisMessageHarness } from '../testing/redis-message-harness';

// Real Redis on a shared 2-core machine: a case may take longer than Jest's 5 s default.
jest.setTimeout(60_000);

describeMessageStoreContract('redis', openRedisMessageHarness);
describeCommitterContract('redis', openRedisMessageHarness);
