--[[
  RECORDED → OUTBOXED, replacing the intent by the same intent with its publication coordinate.

  Input:
    KEYS[1] commit hash   {cs:<shard>}:commit:<id>

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] message id       32 hex; must be the commit's
    ARGV[3] expected intent  CommitIntent bytes read by the caller (publication still null)
    ARGV[4] new intent       the same intent with the publication filled in

  Output:
    {0, state, intent}   moved to OUTBOXED
    {1, state, intent}   already OUTBOXED or COMMITTED: unchanged (the first publication is kept)
    {-1}                 not found (absent or aux-expired)
    {-2}                 another message id
    {-3, state}          still RESERVED
    {-6}                 the stored intent changed since it was read (caller re-reads)
]]
--- @include "result-codes"
--- @include "commit-states"

local c = liveCommit(KEYS[1], ARGV[1])
if not c then return { E_NOT_FOUND } end
if c[3] ~= ARGV[2] then return { E_CONFLICT } end
if STATE_INDEX[c[1]] >= STATE_INDEX.OUTBOXED then return { R_ALREADY, c[1], c[2] } end
if c[1] ~= 'RECORDED' then return { E_INVALID_STATE, c[1] } end
if c[2] ~= ARGV[3] then return { E_CAS_LOST } end
redis.call('HSET', KEYS[1], 'state', 'OUTBOXED', 'intent', ARGV[4])
return { R_OK, 'OUTBOXED', ARGV[4] }
