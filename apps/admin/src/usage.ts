/** The CLI's usage text: printed for `--help` and for an unknown command (both exit 2). */
export const USAGE = `usage: node dist/apps/admin/main.js <command>

commands:
  migrate   create or verify the Scylla/Cassandra keyspace and every table (never alters a
            keyspace; adds only known nullable columns), then run the readiness check
  verify    the readiness check only: reads the system schema, creates and alters nothing
  reset-mailbox-offsets [--shard N]
            with the mailbox's environment and every mailbox stopped: moves the shard group's
            committed offset of each shard that is ahead of the store back to the store's
            frontier + 1 (a shard whose topic was recreated or truncated needs a new
            QIM_MAILBOX_EPOCH instead; the command says so and exits 1)

environment (the variables the services read):
  QIM_SCYLLA_HOSTS     host[:port],...   (port 9042 by default)
  QIM_SCYLLA_KEYSPACE  [a-z][a-z0-9_]{0,47}
  QIM_SCYLLA_DC        local data center
  QIM_SCYLLA_RF        replication factor (below 3 only with QIM_ENV=development|test)
  QIM_ENV              production (default) | staging | development | test

reset-mailbox-offsets reads the mailbox's variables (QIM_STORE_BACKEND, QIM_MAILBOX_SHARDS,
QIM_MAILBOX_EPOCH, QIM_KAFKA_*, QIM_TOPIC_DISPATCH, the backend's variables).

exit status: 0 done and ready; 1 refused, failed or not ready; 2 usage or invalid configuration`;
