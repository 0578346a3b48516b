export { buildApps, builtEntry } from './build-targets';
export { Deployment } from './deployment';
export type { DeploymentOptions, Entries, Instance, ServiceKind } from './deployment';
export { freePort } from './free-port';
export { isolatedEnv } from './isolated-env';
export { SERVICE_NODE_FLAGS, ServiceProcess, killAllServiceProcesses, runToExit, serviceNode } from './service-process';
export type { Exit, RunResult, ServiceProcessOptions } from './service-process';
export { findWorkspaceRoot, workspaceRoot } from './workspace';
