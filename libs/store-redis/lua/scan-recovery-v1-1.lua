--[[
  Recovery candidates of one commit shard, oldest first: walks the recovery index (score =
  created_at ms) below the cutoff and returns the live, non-terminal commits it points to.
  Members whose commit is absent, aux-expired or COMMITTED are skipped (read-only: GC removes them).
  A CLAIMED commit is returned without an intent: the caller completes it from its seq claim.

  Input:
    KEYS[1] recovery index zset  {cs:<shard>}:recovery

    ARGV[1] cutoff score    decimal ms; only members with score < cutoff
    ARGV[2] now             caller clock, 16-hex ms
    ARGV[3] max items       how many commits to return at most
    ARGV[4] commit prefix   "<ns>:{cs:<shard>}:commit:" (same hash tag as KEYS[1])
    ARGV[5] examine cap     index members examined at most (bounds the script's work)

  Output:
    {0, more, state1, member1, intent1|'', state2, member2, intent2|'', ...}
      more = 1 when the examine cap stopped the walk before the index was exhausted; the intent
      is '' for a CLAIMED commit
]]
--- @include "result-codes"
--- @include "commit-states"

local maxItems = tonumber(ARGV[3])
local cap = tonumber(ARGV[5])
local out = { R_OK, 0 }
local found, examined, offset = 0, 0, 0
local page = 128
while found < maxItems do
  local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', offset, page)
  if #members == 0 then break end
  for _, member in ipairs(members) do
    if found >= maxItems then break end
    if examined >= cap then
      out[2] = 1
      return out
    end
    examined = examined + 1
    local c = liveCommit(ARGV[4] .. member, ARGV[2])
    if c and c[1] ~= 'COMMITTED' then
      out[#out + 1] = c[1]
      out[#out + 1] = member
      out[#out + 1] = c[2] or ''
      found = found + 1
    end
  end
  offset = offset + #members
  if #members < page then break end
end
return out
