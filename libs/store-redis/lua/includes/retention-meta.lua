--[[
  The V4 retention meta hash of a user: v ('4'), gen (16 hex), insp (decimal day or ''), gap
  (16 hex or '' = no gap), ledger (active ledger blob). Writers compare all five fields with the
  values they read (a compare-and-set on the whole meta, as the seed's meta LWT).
]]
local META_FIELDS = { 'v', 'gen', 'insp', 'gap', 'ledger' }

-- True when the stored meta equals the five expected values (v = '' means "no meta").
local function metaUnchanged(key, expected)
  local cur = redis.call('HMGET', key, 'v', 'gen', 'insp', 'gap', 'ledger')
  if expected[1] == '' then return not cur[1] and not cur[2] and not cur[3] and not cur[4] and not cur[5] end
  for i = 1, 5 do
    if cur[i] ~= expected[i] then return false end
  end
  return true
end

local function writeMeta(key, new)
  redis.call('HSET', key, 'v', new[1], 'gen', new[2], 'insp', new[3], 'gap', new[4], 'ledger', new[5])
end

-- Proof keys of days no ledger item refers to any more get their one-time physical expiry;
-- `list` is "day:expiryMs,day:expiryMs,..." ('' = none).
local function releaseProofs(prefix, list, grace)
  for day, exp in string.gmatch(list, '(%d+):(%d+)') do
    local key = prefix .. 'proof:' .. day
    if redis.call('EXISTS', key) == 1 then expireOnce(key, exp, grace) end
  end
end
