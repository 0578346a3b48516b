--[[
  The append fast path's check of one day against the active ledger blob (store-core codec "QRL"
  0x01: u16 count, then count × (u32 day, u64 maxSeq, u64 expiresAt), big-endian, exact length),
  read in place, in numbers: ms values are exact in a Lua double below 2^53, and anything at or
  above 2^52 simply does not qualify (the caller then plans the exact compare-and-set path).
]]
local FAST_MS_LIMIT = 4503599627370496

-- A 16-hex ms value as a number, or nil when it is not below 2^52.
local function fastMs(hex)
  local v = tonumber(hex, 16)
  if v and v < FAST_MS_LIMIT then return v end
  return nil
end

-- The expiry (ms number) of the ledger item of `day` (a number); false when the ledger has none or
-- the expiry is not below 2^52, nil when the blob is damaged.
local function ledgerDayExpiry(blob, day)
  if not blob or #blob < 6 then return nil end
  -- one call reads the magic "QRL" 0x01 and the count (no substring built per user)
  local q, r, l, v, c1, c2 = string.byte(blob, 1, 6)
  if q ~= 81 or r ~= 82 or l ~= 76 or v ~= 1 then return nil end
  local count = c1 * 256 + c2
  if count > 32 or #blob ~= 6 + 20 * count then return nil end
  for i = 0, count - 1 do
    local at = 7 + 20 * i
    local b1, b2, b3, b4 = string.byte(blob, at, at + 3)
    if ((b1 * 256 + b2) * 256 + b3) * 256 + b4 == day then
      local h1, h2, h3, h4, l1, l2, l3, l4 = string.byte(blob, at + 12, at + 19)
      if h1 ~= 0 or h2 >= 16 then return false end
      return ((h2 * 256 + h3) * 256 + h4) * 4294967296 + ((l1 * 256 + l2) * 256 + l3) * 256 + l4
    end
  end
  return false
end
