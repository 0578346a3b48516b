--[[
  CLAIMED (= RESERVED) → RECORDED after the record and its history index row were written, storing
  the complete intent. Applied only when the claim is the caller's intent's: same identity and same
  recipients (its seq, message id and created_at were checked against the seq claim by put-record).
  Anything else is answered with the current state; the caller decides (store-core decidePutRecord).

  Input:
    KEYS[1] commit hash   {cs:<shard>}:commit:<id>

    ARGV[1] now          caller clock, 16-hex ms
    ARGV[2] identity     32 bytes
    ARGV[3] recipients   sorted ids, 16 bytes each, concatenated (as claim-commit stored them)
    ARGV[4] intent       CommitIntent codec bytes of the intent (publication none)

  Output:
    {0}                       moved to RECORDED
    {1, state, intent|nil}    not applied: the current state (intent nil while CLAIMED)
    {-1}                      not found (absent or aux-expired)
]]
--- @include "result-codes"
--- @include "commit-states"

local c = liveCommit(KEYS[1], ARGV[1])
if not c then return { E_NOT_FOUND } end
if c[1] == 'CLAIMED' and c[3] == ARGV[2] and c[4] == ARGV[3] then
  redis.call('HSET', KEYS[1], 'state', 'RECORDED', 'intent', ARGV[4])
  redis.call('HDEL', KEYS[1], 'request', 'recipients')
  return { R_OK }
end
return { R_ALREADY, c[1], c[2] }
