import { choice } from './env-fields';

/** The deployment environments `QIM_ENV` accepts. */
export const QIM_ENVS = ['production', 'staging', 'development', 'test'] as const;
/** A `QIM_ENV` value; absent means `production`. */
export type QimEnv = (typeof QIM_ENVS)[number];

/** True for the environments that may use the Memory backend and a replication factor below 3. */
export const isDevelopmentEnv = (env: QimEnv): boolean => env === 'development' || env === 'test';

/** `QIM_ENV`, read alike by both services and the operator CLI. Absent means production. */
export const qimEnvShape = {
  QIM_ENV: choice(QIM_ENVS, 'production').describe(
    '`production` | `staging` | `development` | `test`; the strictest rules apply unless it says otherwise (memory backend, RF < 3, Redis durability settings)',
  ),
} as const;
