--[[
  History index members (lex ZSET, score 0), fixed width so lex order = seq order:
    seq (16 hex) | ephemeral expiry (16 hex ms, all zeros = never) | countable ('1' = kind normal
    or edited and not control) | sender (32 hex)
  A row is live at `now` unless it has an expiry ≤ now (then it is left out, never corruption).
]]
--- @include "hex-u64"

local function rowSeq(member)
  return string.sub(member, 1, 16)
end

local function rowLive(member, nowHex)
  local exp = string.sub(member, 17, 32)
  return exp == HEX_ZERO or hexCmp(exp, nowHex) > 0
end

local function rowCountable(member)
  return string.sub(member, 33, 33) == '1'
end

local function rowSender(member)
  return string.sub(member, 34, 65)
end

-- The index member of seq (any expiry/flags), or nil.
local function rowOf(index, seqHex)
  local m = redis.call('ZRANGEBYLEX', index, '[' .. seqHex, '(' .. seqHex .. '~', 'LIMIT', 0, 1)
  return m[1]
end
