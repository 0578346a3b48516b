--[[
  Takes a lost lease back when the id is free or still carries the caller's token, and answers the
  id's HLC floor, which a holder in between may have raised (store-core `WriterLeaseStore.reacquire`).

  Input:
    KEYS[1] lease      <ns>:{writers}:lease:<i>   holder token, PX ttl
    KEYS[2] floor      <ns>:{writers}:hlc:<i>     HLC floor, decimal u64 (absent = 0)

    ARGV[1] token      the caller's token
    ARGV[2] ttl        lease lifetime (ms, decimal)

  Output:
    {0, floor}   the id is the caller's again: floor decimal ('0' when none)
    {-2}         another token holds it (nothing written)
]]
--- @include "result-codes"

local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return { E_CONFLICT } end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { R_OK, redis.call('GET', KEYS[2]) or '0' }
