--[[
  Physical sweep of dispatches whose fixed GC deadline has passed (their facts are already
  invisible): deletes progress, chunk facts, observation index, the lane source rows at each
  observed offset, the completed-index row and the index members. Bounded by `limit`.

  Input:
    KEYS[1] completed index zset   {ms:<shard>}:completed
    KEYS[2] deadlines zset         {ms:<shard>}:deadlines
    KEYS[3] source index zset      {ms:<shard>}:sources

    ARGV[1] now score      decimal ms
    ARGV[2] now            caller clock, 16-hex ms
    ARGV[3] shard prefix   "<ns>:{ms:<shard>}:"
    ARGV[4] limit          dispatches swept at most

  Output:
    {swept, more}
]]
--- @include "dispatch-facts"

local now, prefix, limit = ARGV[2], ARGV[3], tonumber(ARGV[4])
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, limit + 1)
local swept = 0
for i, d in ipairs(due) do
  if i > limit then break end
  local pk, ik = prefix .. 'dispatch:' .. d, prefix .. 'done:' .. d
  local deadline = redis.call('HGET', pk, 'gcdl') or redis.call('HGET', ik, 'gcdl')
  if not deadline or hexCmp(deadline, now) <= 0 then
    local obsKey = prefix .. 'obs:' .. d
    for _, off in ipairs(factFields(obsKey)) do
      local srcKey = prefix .. 'src:' .. off
      if redis.call('HGET', srcKey, '0') == d then
        redis.call('DEL', srcKey)
        redis.call('ZREM', KEYS[3], off)
      end
    end
    redis.call('DEL', pk, prefix .. 'chunks:' .. d, obsKey, ik)
    redis.call('ZREM', KEYS[1], d)
    redis.call('ZREM', KEYS[2], d)
    swept = swept + 1
  end
end
return { swept, #due > limit and 1 or 0 }
