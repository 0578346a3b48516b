--[[
  Dispatch bookkeeping of one mailbox shard (hash tag {ms:<shard>}; keys built from the shard
  prefix). Every fact is a hash; a fact the GC scheduled carries field '~exp' (16-hex ms, the one
  fixed deadline) and is invisible from that instant on (caller clock), before Redis reclaims it.
    dispatch:<d>  progress: digest, manifest, coff, mseq, maxobs, seen, done, gcdl, gcph,
                  decl ("lane:count,..."), n:<lane> (declared chunks of a lane), pending (a hint:
                  declared chunks not yet completed; completion itself is always read from facts)
    chunks:<d>    completion facts: field '<lane>:<chunk>' = completed-at (16 hex)
    obs:<d>       observation index: field <offset 16 hex> = recorded-at (16 hex)
    src:<offset>  lane source rows: field '<lane>' (0…63) = dispatch id, one per lane
    done:<d>      completed-index row: at, maxobs, gcdl (mirror of the progress deadline)
]]
--- @include "hex-u64"

local function liveHash(key, nowHex)
  if redis.call('EXISTS', key) == 0 then return false end
  local exp = redis.call('HGET', key, '~exp')
  return not exp or hexCmp(exp, nowHex) > 0
end

-- Every declared chunk of `lane` has its live completion fact in chunks:<d> (a lane without
-- chunks is complete). Derived from the facts themselves, never from a counter.
local function laneComplete(prefix, d, lane, nowHex)
  local n = redis.call('HGET', prefix .. 'dispatch:' .. d, 'n:' .. lane)
  if not n or tonumber(n) == 0 then return true end
  local ck = prefix .. 'chunks:' .. d
  if not liveHash(ck, nowHex) then return false end
  for c = 0, tonumber(n) - 1 do
    if redis.call('HEXISTS', ck, lane .. ':' .. c) == 0 then return false end
  end
  return true
end

-- The dispatch id of the live source row (lane, offset), or nil.
local function sourceDispatch(prefix, offHex, lane, nowHex)
  local key = prefix .. 'src:' .. offHex
  if not liveHash(key, nowHex) then return nil end
  local d = redis.call('HGET', key, tostring(lane))
  return d or nil
end

-- Whether the lane's chunks of dispatch d are all complete (unknown/expired dispatch → false).
local function sourceComplete(prefix, d, lane, nowHex)
  if not liveHash(prefix .. 'dispatch:' .. d, nowHex) then return false end
  return laneComplete(prefix, d, lane, nowHex)
end

-- Field names of a fact hash without the schedule marker.
local function factFields(key)
  local out = {}
  for _, f in ipairs(redis.call('HKEYS', key)) do
    if f ~= '~exp' then out[#out + 1] = f end
  end
  return out
end
