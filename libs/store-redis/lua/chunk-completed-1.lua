--[[
  Reads the completion fact of one chunk.

  Input:
    KEYS[1] progress hash   {ms:<shard>}:dispatch:<d>

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] dispatch id    32 hex
    ARGV[3] field          '<lane>:<chunk>'
    ARGV[4] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {0, 1|0}   completed or not (unknown dispatch → 0)
    {-5}       GC marker present
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now = ARGV[1]
if liveHash(KEYS[1], now) and redis.call('HGET', KEYS[1], 'gcdl') then return { E_GC_NOT_SAFE } end
local ck = ARGV[4] .. 'chunks:' .. ARGV[2]
if liveHash(ck, now) and redis.call('HEXISTS', ck, ARGV[3]) == 1 then return { R_OK, 1 } end
return { R_OK, 0 }
