--[[
  RECORDED → OUTBOXED → COMMITTED in one step after a successful publish: stores the intent with
  its publication coordinate, marks the commit COMMITTED and removes its recovery index member.
  Applied only when the commit is RECORDED with exactly the caller's intent; anything else (an
  OUTBOXED commit keeps its first publication and is moved by mark-committed) is answered with the
  current state and the caller decides (store-core decideMarkPublishedAndCommitted).

  Input:
    KEYS[1] commit hash          {cs:<shard>}:commit:<id>
    KEYS[2] recovery index zset  {cs:<shard>}:recovery

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] expected intent  CommitIntent bytes of the caller's intent (publication none)
    ARGV[3] new intent       the same intent with the publication filled in
    ARGV[4] member           commit id (96 hex)

  Output:
    {0}                       moved to COMMITTED
    {1, state, intent|nil}    not applied: the current state
    {-1}                      not found (absent or aux-expired)
]]
--- @include "recorded-move"

return moveFromRecorded(KEYS[1], ARGV[1], ARGV[2], function()
  redis.call('HSET', KEYS[1], 'state', 'COMMITTED', 'intent', ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[4])
end)
