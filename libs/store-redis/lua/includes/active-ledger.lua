--[[
  Reads the active ledger blob (store-core codec "QRL" 0x01: u16 count, then count × (u32 day,
  u64 maxSeq, u64 expiresAt), big-endian, exact length) into {day = n, max = hex16, exp = hex16}
  items. nil when the blob is damaged (the TypeScript decoder gives the detailed refusal).
]]
local function bytesHex(s, from, to)
  local out = {}
  for i = from, to do out[#out + 1] = string.format('%02x', string.byte(s, i)) end
  return table.concat(out)
end

local function parseLedger(blob)
  if not blob or #blob < 6 or string.sub(blob, 1, 4) ~= 'QRL\1' then return nil end
  local count = string.byte(blob, 5) * 256 + string.byte(blob, 6)
  if count > 32 or #blob ~= 6 + 20 * count then return nil end
  local items = {}
  for i = 0, count - 1 do
    local at = 7 + 20 * i
    local b1, b2, b3, b4 = string.byte(blob, at, at + 3)
    local day = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    items[#items + 1] = { day = day, max = bytesHex(blob, at + 4, at + 11), exp = bytesHex(blob, at + 12, at + 19) }
  end
  return items
end
