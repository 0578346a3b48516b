/**
 * The slow-path meta rule (consume expired days at their bucket proofs' max seq) lives in
 * store-core so that Memory, the reference model, follows it too (issue 15 (5)).
 */
export { appendWithProofs, proofsToRead } from '@qim/store-core';
