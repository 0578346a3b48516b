--[[
  The bounded walk of the housekeeping scripts (gc-commit-aux, gc-history): the members of a zset
  scored at most a bound, oldest first, at most `limit` of them.
]]

-- Calls visit(member) for at most limit members of zset key with score ≤ boundScore (a ZSET bound);
-- visit answers true when it reclaimed the member. Returns examined, reclaimed and more (1 when due
-- members remain beyond the limit).
local function forEachDue(key, boundScore, limit, visit)
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', boundScore, 'LIMIT', 0, limit + 1)
  local examined, reclaimed = 0, 0
  for i, member in ipairs(due) do
    if i > limit then break end
    examined = examined + 1
    if visit(member) then reclaimed = reclaimed + 1 end
  end
  return examined, reclaimed, #due > limit and 1 or 0
end
