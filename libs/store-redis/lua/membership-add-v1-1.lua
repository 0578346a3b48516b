--[[
  Adds users to one conversation's member set, atomically under a cap: every user is added, or
  none is (store-core `MembershipDirectory.add`).

  Input:
    KEYS[1] members    <ns>:members:{<tenant>:<conversation>}   set of 32-hex user ids

    ARGV[1] cap        most members the set may hold after the change (decimal)
    ARGV[2…] users     32-hex user ids to add (a repeated id counts once)

  Output:
    {0, n}     added: n = member count after the change
    {-14, n}   refused, nothing written: n = the count the set would have had (> cap)
]]
--- @include "result-codes"

local n = redis.call('SCARD', KEYS[1])
local fresh = 0
local seen = {}
for i = 2, #ARGV do
  local u = ARGV[i]
  if not seen[u] then
    seen[u] = true
    if redis.call('SISMEMBER', KEYS[1], u) == 0 then fresh = fresh + 1 end
  end
end
if n + fresh > tonumber(ARGV[1]) then return { E_OVER_LIMIT, n + fresh } end
for i = 2, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
return { R_OK, redis.call('SCARD', KEYS[1]) }
