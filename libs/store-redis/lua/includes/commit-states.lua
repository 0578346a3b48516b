--[[
  The commit lifecycle order RESERVED(0) → RECORDED(1) → OUTBOXED(2) → COMMITTED(3), and the
  commit hash layout: identity, intent (CommitIntent codec bytes), state, message (id hex),
  expires (aux expiry, 16-hex ms), created (created_at, the recovery score).
]]
--- @include "hex-u64"

local STATE_INDEX = { RESERVED = 0, RECORDED = 1, OUTBOXED = 2, COMMITTED = 3 }

-- The live commit as {state, intent, message} or nil when absent or logically expired at nowHex.
local function liveCommit(key, nowHex)
  local c = redis.call('HMGET', key, 'state', 'intent', 'message', 'expires')
  if not c[1] or not c[4] or hexCmp(c[4], nowHex) <= 0 then return nil end
  return c
end
