--[[
  Bounded housekeeping of expired Ephemeral history in one conversation: for each expiry member
  with score ≤ now (at most `limit`), whose index row's expiry ≤ now, deletes the record, the
  index row and the expiry member (reclaimed). Rows not yet expired are never touched.

  Input:
    KEYS[1] history index zset  {cv:<tenant><conv>}:index
    KEYS[2] expiry zset         {cv:<tenant><conv>}:expiry

    ARGV[1] now score       decimal ms
    ARGV[2] now             caller clock, 16-hex ms
    ARGV[3] limit           expiry members examined at most
    ARGV[4] record prefix   "<ns>:{cv:<tenant><conv>}:rec:"

  Output:
    {examined, reclaimed, more, next}
      more = 1 when expired members remain beyond the limit;
      next = score of the earliest remaining expiry member, or '' when none remain
]]
--- @include "history-index"
--- @include "due-members"

local examined, reclaimed, more = forEachDue(KEYS[2], ARGV[1], tonumber(ARGV[3]), function(seq)
  local row = rowOf(KEYS[1], seq)
  if row and rowLive(row, ARGV[2]) then return false end
  if row then redis.call('ZREM', KEYS[1], row) end
  redis.call('DEL', ARGV[4] .. seq)
  redis.call('ZREM', KEYS[2], seq)
  return true
end)
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return { examined, reclaimed, more, first[2] or '' }
