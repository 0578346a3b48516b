import { describeCommitterContract, describeMessageStoreContract } from '@qim/store-contract/testing';
import { memoryMessageHarness } from '../testing/memory-harnesses';

describeMessageStoreContract('memory', memoryMessageHarness);
describeCommitterContract('memory', memoryMessageHarness);
