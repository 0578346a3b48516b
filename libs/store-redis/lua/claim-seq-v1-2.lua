--[[
  The conversation half of a reserve: the seq claim of a commit key (store-core `SeqClaim`), made
  in the same atomic step that allocates the seq, so identical reserves — concurrent or repeated, in
  any process — spend one seq and fix one message id and created_at. Atomically:
    1. a live claim (present and its expiry > now) of the same identity is adopted (no INCR);
    2. a live claim of another identity is answered with that identity (the caller: conflict);
    3. otherwise the seq counter is incremented and the claim stored with this request's candidates
       and the commit's aux expiry (it lives as long as the commit facts), with a one-time physical
       expiry.
  Claim value (112 bytes): identity (32 bytes) | seq (16 hex) | message id (32 hex) | created_at
  (16 hex ms) | expiry (16 hex ms).

  Input:
    KEYS[1] seq counter   {cv:<tenant><conv>}:seq
    KEYS[2] seq claim     {cv:<tenant><conv>}:claim:<commit id>

    ARGV[1] now              caller clock, 16-hex ms
    ARGV[2] identity         32 bytes
    ARGV[3] message id       32 hex (candidate)
    ARGV[4] created          16-hex ms (candidate)
    ARGV[5] aux expiry       16-hex ms
    ARGV[6] aux expiry score decimal ms (clamped)
    ARGV[7] grace            physical clean-up grace, decimal ms

  Output:
    {0, claim}       allocated: the new claim value
    {1, claim}       adopted: the live claim of the same identity
    {-2, claim}      a live claim of another identity holds the key
    {-7}             the stored claim is malformed
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "physical-expiry"

local CLAIM_BYTES = 112
local current = redis.call('GET', KEYS[2])
if current then
  if #current ~= CLAIM_BYTES then return { E_CORRUPT } end
  if hexCmp(string.sub(current, 97, 112), ARGV[1]) > 0 then
    if string.sub(current, 1, 32) == ARGV[2] then return { R_ALREADY, current } end
    return { E_CONFLICT, current }
  end
end

local n = redis.call('INCR', KEYS[1])
if n >= 9007199254740992 then return redis.error_reply('conversation seq beyond 2^53') end
local claim = ARGV[2] .. string.format('%08x%08x', math.floor(n / 4294967296), n % 4294967296) .. ARGV[3] .. ARGV[4] .. ARGV[5]
redis.call('SET', KEYS[2], claim)
expireOnce(KEYS[2], ARGV[6], ARGV[7])
return { R_OK, claim }
