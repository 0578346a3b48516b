--[[
  The read of `rangeScan` after the epoch checks, atomically against concurrent appends:
    1. no retention meta → only the trim check (CursorExpired below trim), else "clean user";
    2. a ledger item whose absolute expiry ≤ now → NEEDS_INSPECT (the caller runs the inspect with
       store-core `applyInspect` and retries; nothing expired is ever read past);
    3. after < max(trim, gap) → CursorExpired with that boundary;
    4. the entries with after < seq ≤ upTo from the per-day indexes of the live ledger days of this
       epoch, merged ascending, at most `max` of them, each with its stored bytes (nil = missing).

  Input:
    KEYS[1] retention meta hash   {mb:<bucket>}:u:<tenant><user>:meta
    KEYS[2] trim                  {mb:<bucket>}:u:<tenant><user>:trim   (16-hex seq)

    ARGV[1] now           caller clock, 16-hex ms
    ARGV[2] after         16-hex seq (exclusive)
    ARGV[3] up to         16-hex seq (inclusive)
    ARGV[4] max           entries returned at most
    ARGV[5] epoch         the store's epoch (decimal)
    ARGV[6] user prefix   "<ns>:{mb:<bucket>}:u:<tenant><user>:"

  Output:
    {0, 0}                          clean user (no meta), cursor not below trim
    {0, 1, seq1, bytes1, ...}       entries ascending (bytes nil when the entry key is missing)
    {-8, boundary}                  cursor expired: boundary = max(trim, gap), 16 hex
    {-9}                            an expired ledger item must be inspected first
    {-7}                            meta damaged (version, ledger blob)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "active-ledger"

local now, after, upTo, max = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local trim = redis.call('GET', KEYS[2])
local meta = redis.call('HMGET', KEYS[1], 'v', 'gap', 'ledger')
if not meta[1] then
  if trim and hexCmp(after, trim) < 0 then return { E_CURSOR_EXPIRED, trim } end
  return { R_OK, 0 }
end
if meta[1] ~= '4' then return { E_CORRUPT } end
local ledger = parseLedger(meta[3])
if not ledger then return { E_CORRUPT } end
for _, item in ipairs(ledger) do
  if hexCmp(item.exp, now) <= 0 then return { E_NEEDS_INSPECT } end
end
local boundary = trim
if meta[2] and meta[2] ~= '' then boundary = boundary and hexMax(boundary, meta[2]) or meta[2] end
if boundary and hexCmp(after, boundary) < 0 then return { E_CURSOR_EXPIRED, boundary } end

local seqs, seen = {}, {}
for _, item in ipairs(ledger) do
  local dayKey = ARGV[6] .. 'day:' .. ARGV[5] .. ':' .. item.day
  for _, seq in ipairs(redis.call('ZRANGEBYLEX', dayKey, '(' .. after, '[' .. upTo, 'LIMIT', 0, max)) do
    if not seen[seq] then
      seen[seq] = true
      seqs[#seqs + 1] = seq
    end
  end
end
table.sort(seqs, function(a, b) return hexCmp(a, b) < 0 end)
local out = { R_OK, 1 }
for i = 1, math.min(#seqs, max) do
  out[#out + 1] = seqs[i]
  out[#out + 1] = redis.call('GET', ARGV[6] .. 'entry:' .. seqs[i])
end
return out
