--[[
  Gives a lease back and records the caller's HLC high-water mark (store-core
  `WriterLeaseStore.release`). The floor is raised even when the lease is no longer the caller's:
  a floor only ever rises, and a successor must start above every id the caller issued.

  Input:
    KEYS[1] lease      <ns>:{writers}:lease:<i>   holder token, PX ttl
    KEYS[2] floor      <ns>:{writers}:hlc:<i>     HLC floor, decimal u64

    ARGV[1] token      the caller's token
    ARGV[2] hlc        the caller's HLC high-water mark (decimal u64)

  Output:
    {0}   released (the lease was the caller's)
    {1}   the lease was gone or another token's: left as it is
]]
--- @include "result-codes"
--- @include "decimal-floor"

raiseDecimalFloor(KEYS[2], ARGV[2])
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { R_ALREADY } end
redis.call('DEL', KEYS[1])
return { R_OK }
