/**
 * Test support of the mailbox runtime (`@qim/mailbox-runtime/testing`): the message records its specs
 * and the mailbox app's specs deliver — never imported by production code.
 */
export { specMessage } from './testing/spec-message';
