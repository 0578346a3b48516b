/** The CLI's usage text: printed for `--help` and for an unknown command (both exit 2). */
export const USAGE = `usage: node dist/apps/admin/main.js <command>

commands:
  migrate   create or verify the Scylla/Cassandra keyspace and every table (never alters a
            keyspace; adds only known nullable columns), then run the readiness check
  verify    the readiness check only: reads the system schema, creates and alters nothing

environment (the variables the services read):
  QIM_SCYLLA_HOSTS     host[:port],...   (port 9042 by default)
  QIM_SCYLLA_KEYSPACE  [a-z][a-z0-9_]{0,47}
  QIM_SCYLLA_DC        local data center
  QIM_SCYLLA_RF        replication factor (below 3 only with QIM_ENV=development|test)
  QIM_ENV              production (default) | staging | development | test

exit status: 0 done and ready; 1 refused, failed or not ready; 2 usage or invalid configuration`;
