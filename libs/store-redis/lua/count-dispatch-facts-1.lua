--[[
  Harness observation (never used by the store): the number of live bookkeeping rows of one
  dispatch — progress, observation rows, lane source rows (each of the 64 lanes at each offset),
  chunk completion facts and the completed-index row.

  Input:
    KEYS[1] source index zset   {ms:<shard>}:sources

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] dispatch id    32 hex
    ARGV[3] shard prefix   "<ns>:{ms:<shard>}:"

  Output:
    {count}
]]
--- @include "dispatch-facts"

local now, d, prefix = ARGV[1], ARGV[2], ARGV[3]
local n = 0
if liveHash(prefix .. 'dispatch:' .. d, now) then n = n + 1 end
if liveHash(prefix .. 'done:' .. d, now) then n = n + 1 end
for _, key in ipairs({ prefix .. 'obs:' .. d, prefix .. 'chunks:' .. d }) do
  if liveHash(key, now) then n = n + #factFields(key) end
end
for _, off in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], '-', '+')) do
  local srcKey = prefix .. 'src:' .. off
  if liveHash(srcKey, now) then
    local rows = redis.call('HGETALL', srcKey)
    for i = 1, #rows, 2 do
      if rows[i] ~= '~exp' and rows[i + 1] == d then n = n + 1 end
    end
  end
end
return { n }
