--[[
  The one move out of RECORDED shared by mark-outboxed and mark-published-committed: it applies
  only to a live commit that is RECORDED with exactly the intent the caller read and decided on.
]]
--- @include "result-codes"
--- @include "commit-states"

-- Calls apply() when the live commit at key is RECORDED with intent expectedIntent and answers
-- {R_OK}; otherwise answers {E_NOT_FOUND} (absent or aux-expired) or {R_ALREADY, state, intent|nil}.
local function moveFromRecorded(key, nowHex, expectedIntent, apply)
  local c = liveCommit(key, nowHex)
  if not c then return { E_NOT_FOUND } end
  if c[1] == 'RECORDED' and c[2] == expectedIntent then
    apply()
    return { R_OK }
  end
  return { R_ALREADY, c[1], c[2] }
end
