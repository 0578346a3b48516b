--[[
  Step 3 of applyPage (ADR-0022 §2): moves the shard frontier of one epoch to `offset` unless it
  is already there or beyond (compare-and-keep-max: an older or zombie write can never lower it).
  The caller writes it only after every entry of its page was acknowledged.

  Input:
    KEYS[1] frontier   {sf:<shard>}:mbd-frontier:<epoch>   (16-hex offset; absent = none yet)

    ARGV[1] offset     16 hex, the page's toOffset

  Output:
    {0, F}   raised: F = offset
    {1, F}   unchanged: the stored F ≥ offset
    {-7}     the stored frontier is damaged (nothing written)
]]
--- @include "result-codes"
--- @include "hex-u64"

local cur = redis.call('GET', KEYS[1])
if cur and (#cur ~= 16 or not string.match(cur, '^%x+$')) then return { E_CORRUPT } end
if cur and hexCmp(cur, ARGV[1]) >= 0 then return { R_ALREADY, cur } end
redis.call('SET', KEYS[1], ARGV[1])
return { R_OK, ARGV[1] }
