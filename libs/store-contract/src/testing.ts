export * from './harness';
export { describeMessageStoreContract } from './message-store-contract';
export { describeMailboxStoreContract } from './mailbox-store-contract';
export { UNREAD_VECTORS } from './message/unread-vectors';
export type { UnreadVector, UnreadVectorMessage } from './message/unread-vectors';
export { TimeControl } from './support/time-control';
export { describeCommitterContract } from './committer-contract';
export { describeCoordinationContract } from './coordination-contract';
export type { CoordinationHarness } from './coordination-contract';
