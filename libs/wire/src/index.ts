export * from './fields';
export * from './message-json';
export * from './acting-headers';
