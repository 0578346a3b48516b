--[[
  Extends a lease its holder still owns and raises the id's HLC floor (store-core
  `WriterLeaseStore.renew`).

  Input:
    KEYS[1] lease      <ns>:{writers}:lease:<i>   holder token, PX ttl
    KEYS[2] floor      <ns>:{writers}:hlc:<i>     HLC floor, decimal u64

    ARGV[1] token      the caller's token
    ARGV[2] ttl        new lease lifetime (ms, decimal)
    ARGV[3] hlc        the caller's HLC high-water mark (decimal u64)

  Output:
    {0}    renewed, floor raised to at least hlc
    {-2}   the lease is gone or held by another token (nothing written)
]]
--- @include "result-codes"
--- @include "decimal-floor"

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { E_CONFLICT } end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
raiseDecimalFloor(KEYS[2], ARGV[3])
return { R_OK }
