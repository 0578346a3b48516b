--[[
  Reads a lane's stored {W, floor} and the facts to verify it: every live source of the lane in
  (floor, W] with whether the lane's chunks of its dispatch are complete. The wrapper recomputes
  W with store-core `recomputeWatermark` and checks it with `verifyWatermark`.

  Input:
    KEYS[1] watermarks hash    {ms:<shard>}:watermarks   fields w:<lane>, f:<lane> (16 hex)
    KEYS[2] source index zset  {ms:<shard>}:sources

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] lane           0…63
    ARGV[3] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {0, W|'', floor|'', offset1, complete1 (1|0), offset2, complete2, ...}
]]
--- @include "result-codes"
--- @include "dispatch-facts"

local now, lane, prefix = ARGV[1], ARGV[2], ARGV[3]
local w = redis.call('HGET', KEYS[1], 'w:' .. lane)
local f = redis.call('HGET', KEYS[1], 'f:' .. lane)
local out = { R_OK, w or '', f or '' }
if w then
  for _, off in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], f and '(' .. f or '-', '[' .. w)) do
    local d = sourceDispatch(prefix, off, lane, now)
    if d then
      out[#out + 1] = off
      out[#out + 1] = sourceComplete(prefix, d, lane, now) and 1 or 0
    end
  end
end
return out
