--[[
  OUTBOXED → COMMITTED (intent and coordinates kept) and removes the commit's recovery index
  member in the same step: a terminal commit never needs recovery.

  Input:
    KEYS[1] commit hash          {cs:<shard>}:commit:<id>
    KEYS[2] recovery index zset  {cs:<shard>}:recovery

    ARGV[1] now      caller clock, 16-hex ms
    ARGV[2] member   commit id (96 hex)

  Output:
    {0, state, intent}   moved to COMMITTED
    {1, state, intent}   already COMMITTED: unchanged
    {-1}                 not found (absent or aux-expired)
    {-3, state}          RESERVED or RECORDED
]]
--- @include "result-codes"
--- @include "commit-states"

local c = liveCommit(KEYS[1], ARGV[1])
if not c then return { E_NOT_FOUND } end
if c[1] == 'COMMITTED' then return { R_ALREADY, c[1], c[2] } end
if c[1] ~= 'OUTBOXED' then return { E_INVALID_STATE, c[1] } end
redis.call('HSET', KEYS[1], 'state', 'COMMITTED')
redis.call('ZREM', KEYS[2], ARGV[2])
return { R_OK, 'COMMITTED', c[2] }
