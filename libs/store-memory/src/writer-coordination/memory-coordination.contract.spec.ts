import { describeCoordinationContract } from '@qim/store-contract/testing';
import type { ClaimTable } from './memory-recovery-claims';
import { MemoryRecoveryClaims } from './memory-recovery-claims';
import { MemoryLeaseStore } from './memory-lease-store';
import { MemoryMembership } from '../membership/memory-membership';

describeCoordinationContract('memory', async () => {
  const table: ClaimTable = new Map();
  return {
    membership: new MemoryMembership(),
    leases: new MemoryLeaseStore(),
    claimsOf: (owner) => new MemoryRecoveryClaims(owner, Date.now, table),
    close: async () => {},
  };
});
