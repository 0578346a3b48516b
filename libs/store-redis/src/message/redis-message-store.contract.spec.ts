import { describeCommitterContract, describeMessageStoreContract } from '@qim/store-contract/testing';
import { openRedisMessageHarness } from '../testing/redis-message-harness';

describeMessageStoreContract('redis', openRedisMessageHarness);
describeCommitterContract('redis', openRedisMessageHarness);
