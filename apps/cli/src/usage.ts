export const USAGE = `usage: qim [options] <command> [arguments]

commands:
  send <conversation> <text...>        send a message as the acting user
       [--kind normal|edited|recalled|system] [--content-type T] [--control]
       [--ttl SECONDS] (ephemeral) [--client-id ID] (repeat a send whose outcome is unknown)
  send --file FILE                     one message per JSON line (FILE - : standard input): conversation_id,
       text or body (base64), optional client_message_id, kind, content_type, control, ttl_seconds;
       sent in batches of [--batch-size N] (100); prints each line's outcome and client id
  history <conversation>               newest first; [--direction older|newer] [--anchor SEQ]
       [--page-size N] [--limit N] (messages printed, default 50) [--all]
  sync                                 the acting user's mailbox from [--after SEQ] (default: the start)
       [--follow] (keep printing entries as they arrive; long-polls) [--wait-ms N] [--page-size N]
       [--stream] (follow by streamed pages instead of long polls, GET …/stream; reconnects by itself)
  members add|remove <conversation> <user...>
  members list <conversation>
  status                               readiness of both services and each mailbox shard's frontier and lag
       [--shard N]... [--shards COUNT] (default: every shard the mailbox knows)

options (flag, else environment, else default):
  --writer-url URL     QIM_WRITER_URL     (http://127.0.0.1:18080)
  --mailbox-url URL    QIM_MAILBOX_URL    (http://127.0.0.1:18081)
  --token-file FILE    QIM_SERVICE_TOKEN  (required; the file's first line; never a flag's value,
                                          which the process list would show)
  --tenant ID          QIM_TENANT_ID      (32 lowercase hex)
  --user ID            QIM_USER_ID        (32 lowercase hex; the acting user)
  --timeout-ms N       bound of one attempt (10000)
  --json               machine-readable output: one JSON document, or one JSON line per
                       message / entry for history and sync (u64s as strings, bodies base64)

exit status: 0 done, 1 refused or failed (code, status and request id on stderr), 2 usage or configuration`;
