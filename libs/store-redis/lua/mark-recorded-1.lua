--[[
  RESERVED → RECORDED, after the record and its history index row were written. Guarded by the
  stored intent bytes (the ones the wrapper validated the record against).

  Input:
    KEYS[1] commit hash   {cs:<shard>}:commit:<id>

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] expected intent  CommitIntent bytes read and validated by the caller

  Output:
    {0, state, intent}   moved to RECORDED
    {1, state, intent}   already RECORDED or later: unchanged
    {-1}                 not found (absent or aux-expired)
    {-6}                 the stored intent changed since it was read (caller re-reads)
]]
--- @include "result-codes"
--- @include "commit-states"

local c = liveCommit(KEYS[1], ARGV[1])
if not c then return { E_NOT_FOUND } end
if STATE_INDEX[c[1]] >= STATE_INDEX.RECORDED then return { R_ALREADY, c[1], c[2] } end
if c[2] ~= ARGV[2] then return { E_CAS_LOST } end
redis.call('HSET', KEYS[1], 'state', 'RECORDED')
return { R_OK, 'RECORDED', c[2] }
