--[[
  Compare-and-set of a lane's floor (store-core `decideFloor`): the stored floor must equal the
  expected one, the new floor may not go below it nor above W (null W → refused); equal → no-op.

  Input:
    KEYS[1] watermarks hash   {ms:<shard>}:watermarks

    ARGV[1] lane       0…63
    ARGV[2] expected   16 hex, or '' for null
    ARGV[3] new floor  16 hex

  Output:
    {code, W|'', floor before|''}   code: 0 moved, 1 no-op, -11 refused
]]
--- @include "result-codes"
--- @include "hex-u64"

local lane, expected, new = ARGV[1], ARGV[2], ARGV[3]
local w = redis.call('HGET', KEYS[1], 'w:' .. lane)
local f = redis.call('HGET', KEYS[1], 'f:' .. lane)
local function reply(code)
  return { code, w or '', f or '' }
end
if (f or '') ~= expected then return reply(E_WATERMARK_CONFLICT) end
if f and hexCmp(new, f) < 0 then return reply(E_WATERMARK_CONFLICT) end
if not w or hexCmp(new, w) > 0 then return reply(E_WATERMARK_CONFLICT) end
if f == new then return reply(R_ALREADY) end
redis.call('HSET', KEYS[1], 'f:' .. lane, new)
return reply(R_OK)
