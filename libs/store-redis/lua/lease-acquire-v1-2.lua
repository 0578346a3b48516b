--[[
  Takes writer id i when it is free (SET NX PX) and answers the HLC floor its previous holders
  recorded (store-core `WriterLeaseStore.acquire`, one id per call; the wrapper walks the ids).

  Input:
    KEYS[1] lease      <ns>:{writers}:lease:<i>   holder token, PX ttl
    KEYS[2] floor      <ns>:{writers}:hlc:<i>     HLC floor, decimal u64 (absent = 0)

    ARGV[1] token      the new holder's random token
    ARGV[2] ttl        lease lifetime (ms, decimal)

  Output:
    {0, floor}   taken: floor = the id's HLC floor, decimal ('0' when none)
    {-2}         another holder's lease is live (nothing written)
]]
--- @include "result-codes"

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return { E_CONFLICT } end
return { R_OK, redis.call('GET', KEYS[2]) or '0' }
