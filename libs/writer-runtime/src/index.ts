export * from './config/writer-config';
export * from './identity/hybrid-clock';
export * from './identity/message-id-source';
export * from './identity/lease-keeper';
export * from './membership-authorizer';
export * from './message-sender';
export * from './writer-runtime';
export * from './send-deadline';
export * from './send-batch';
export * from './replay-answer';
export * from './housekeeping';
export * from './writer-metrics';
export type { Coordination } from '@qim/backends';
// Memory mode's membership, for the writer's and tools' in-process setups (apps reach backends only through the service libraries).
export { AdmissionGate, AdmissionRefusedError, AdmissionSender, admissionDrainAfterMs, effectiveLagMs } from './admission';
