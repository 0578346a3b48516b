--[[
  RECORDED → OUTBOXED, replacing the intent by the same intent with its publication coordinate.
  Applied only when the stored intent is exactly the one the caller read and decided on
  (store-core decideMarkOutboxPublished); anything else is answered with the current state.

  Input:
    KEYS[1] commit hash   {cs:<shard>}:commit:<id>

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] expected intent  CommitIntent bytes read by the caller (publication none)
    ARGV[3] new intent       the same intent with the publication filled in

  Output:
    {0}                       moved to OUTBOXED
    {1, state, intent|nil}    not applied: the current state
    {-1}                      not found (absent or aux-expired)
]]
--- @include "recorded-move"

return moveFromRecorded(KEYS[1], ARGV[1], ARGV[2], function()
  redis.call('HSET', KEYS[1], 'state', 'OUTBOXED', 'intent', ARGV[3])
end)
