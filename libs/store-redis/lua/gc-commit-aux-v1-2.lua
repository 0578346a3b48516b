--[[
  Bounded housekeeping of expired auxiliary commit facts in one commit shard. For each aux-GC
  member with score ≤ now (oldest first, at most `limit`): when its commit hash is absent or its
  aux expiry ≤ now, deletes the hash and both index members (reclaimed); otherwise (the key was
  reserved again with a later expiry) only re-scores the aux member.

  Input:
    KEYS[1] aux GC zset          {cs:<shard>}:aux
    KEYS[2] recovery index zset  {cs:<shard>}:recovery

    ARGV[1] now score       decimal ms (ZSET bound)
    ARGV[2] now             caller clock, 16-hex ms
    ARGV[3] limit           members examined at most
    ARGV[4] commit prefix   "<ns>:{cs:<shard>}:commit:"

  Output:
    {examined, reclaimed, more}   more = 1 when candidates remain beyond the limit
]]
--- @include "hex-u64"
--- @include "due-members"

local examined, reclaimed, more = forEachDue(KEYS[1], ARGV[1], tonumber(ARGV[3]), function(member)
  local key = ARGV[4] .. member
  local c = redis.call('HMGET', key, 'expires', 'state')
  if not c[1] or hexCmp(c[1], ARGV[2]) <= 0 then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
    return true
  end
  local score = tonumber(string.sub(c[1], 1, 8), 16) * 4294967296 + tonumber(string.sub(c[1], 9, 16), 16)
  redis.call('ZADD', KEYS[1], string.format('%.0f', score), member)
  return false
end)
return { examined, reclaimed, more }
