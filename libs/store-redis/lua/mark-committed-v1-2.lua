--[[
  OUTBOXED → COMMITTED (intent and coordinates kept) and removes the commit's recovery index
  member in the same step: a terminal commit never needs recovery. Any other state is answered
  as it is; the caller decides (store-core decideMarkCommitted).

  Input:
    KEYS[1] commit hash          {cs:<shard>}:commit:<id>
    KEYS[2] recovery index zset  {cs:<shard>}:recovery

    ARGV[1] now      caller clock, 16-hex ms
    ARGV[2] member   commit id (96 hex)

  Output:
    {0, intent}               moved to COMMITTED
    {1, state, intent|nil}    not applied: the current state
    {-1}                      not found (absent or aux-expired)
]]
--- @include "result-codes"
--- @include "commit-states"

local c = liveCommit(KEYS[1], ARGV[1])
if not c then return { E_NOT_FOUND } end
if c[1] == 'OUTBOXED' then
  redis.call('HSET', KEYS[1], 'state', 'COMMITTED')
  redis.call('ZREM', KEYS[2], ARGV[2])
  return { R_OK, c[2] }
end
return { R_ALREADY, c[1], c[2] }
