--[[
  Physical clean-up. Logical expiry is always decided against the caller's clock (ARGV now);
  Redis-native expiry only reclaims memory, set once (PEXPIREAT ... NX: never renewed) at
  max(logical expiry, server now) + grace, so it can never fire before the logical expiry nor
  before `grace` has passed on the server's own clock.
]]
local serverNowCache = nil

local function serverNowMs()
  if serverNowCache == nil then
    local t = redis.call('TIME')
    serverNowCache = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return serverNowCache
end

-- logicalMs / graceMs: decimal ms strings (the wrappers clamp them below 2^52).
local function expireOnce(key, logicalMs, graceMs)
  local at = math.max(tonumber(logicalMs), serverNowMs()) + tonumber(graceMs)
  redis.call('PEXPIREAT', key, string.format('%.0f', at), 'NX')
end
