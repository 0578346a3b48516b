--[[
  Claims one commit for one writer's recovery pass when unclaimed or already the caller's
  (store-core `RecoveryClaims.claim`). A claim is never released: it expires.

  Input:
    KEYS[1] claim      <ns>:{cs:<shard>}:recovery-claim:<commit member>   owner token, PX ttl

    ARGV[1] owner      the claiming writer's token
    ARGV[2] ttl        claim lifetime (ms, decimal)

  Output:
    {0}    claimed (or claimed again) for ttl
    {-2}   another owner's claim is live (nothing written)
]]
--- @include "result-codes"

local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return { E_CONFLICT } end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { R_OK }
