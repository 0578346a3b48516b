--[[
  The commit hash; states CLAIMED (= RESERVED), RECORDED, OUTBOXED, COMMITTED. Fields: identity
  (32 bytes), state, expires (aux expiry, 16-hex ms); while CLAIMED also request (SendRequest codec
  bytes) and recipients (sorted ids, 16 bytes each); from RECORDED on intent (the complete
  CommitIntent codec bytes). A CLAIMED commit whose seq claim exists at its
  conversation is RESERVED (see claim-commit, claim-seq).
]]
--- @include "hex-u64"

-- The commit hash's fields {state, intent, identity, recipients, expires} (false where absent).
local function commitFields(key)
  return redis.call('HMGET', key, 'state', 'intent', 'identity', 'recipients', 'expires')
end

-- Whether fields read by commitFields are a commit that is live (not logically expired) at nowHex.
local function isLive(c, nowHex)
  return c[1] and c[5] and hexCmp(c[5], nowHex) > 0
end

-- The live commit's fields, or nil when absent or logically expired at nowHex.
local function liveCommit(key, nowHex)
  local c = commitFields(key)
  if not isLive(c, nowHex) then return nil end
  return c
end
