export * from './kafka-factory';
export * from './outbox-publisher';
export * from './dispatch-producer';
export * from './router-plan';
export * from './record-handler';
export * from './partition-consumer';
export * from './topics';
