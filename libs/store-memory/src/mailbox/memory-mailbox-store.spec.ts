import { describeMailboxStoreContract } from '@qim/store-contract/testing';
import { memoryMailboxHarness } from '../testing/memory-harnesses';

describeMailboxStoreContract('memory', memoryMailboxHarness);
