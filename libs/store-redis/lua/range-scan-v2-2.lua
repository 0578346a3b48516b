--[[
  The read of `rangeScan` after the epoch checks, atomically against concurrent appends:
    1. no retention meta → only the trim check (CursorExpired below trim), else "clean user";
    2. a ledger item whose absolute expiry ≤ now → NEEDS_INSPECT (the caller runs the inspect with
       store-core `applyInspect` and retries; nothing expired is ever read past);
    3. after < max(trim, gap) → CursorExpired with that boundary;
    4. the entries with after < seq ≤ upTo from the per-day indexes of the live ledger days of this
       epoch (members seq (16 hex) .. MailboxEntry bytes), merged ascending: the members of the
       first `max` seqs. A seq with two members (other bytes written under one seq) is answered
       twice and refused as corrupt by the reader; each day is read to `max` + 1 members so that
       the second member of the lowest such seq is always among them.

  Input:
    KEYS[1] retention meta hash   {mb:<bucket>}:u2:<tenant><user>:meta
    KEYS[2] trim                  {mb:<bucket>}:u2:<tenant><user>:trim   (16-hex seq)

    ARGV[1] now           caller clock, 16-hex ms
    ARGV[2] after         16-hex seq (exclusive)
    ARGV[3] up to         16-hex seq (inclusive)
    ARGV[4] max           entries returned at most
    ARGV[5] epoch         the store's epoch (decimal)
    ARGV[6] user prefix   "<ns>:{mb:<bucket>}:u2:<tenant><user>:"

  Output:
    {0, 0}                          clean user (no meta), cursor not below trim
    {0, 1, seq1, bytes1, ...}       entries ascending (a seq repeated: several members, damage)
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

if after == 'ffffffffffffffff' then return { R_OK, 1 } end
local from = '[' .. hexInc(after)
local to = upTo == 'ffffffffffffffff' and '+' or '(' .. hexInc(upTo)
local members, seen = {}, {}
for _, item in ipairs(ledger) do
  local dayKey = ARGV[6] .. 'day:' .. ARGV[5] .. ':' .. item.day
  for _, m in ipairs(redis.call('ZRANGEBYLEX', dayKey, from, to, 'LIMIT', 0, max + 1)) do
    if not seen[m] then
      seen[m] = true
      members[#members + 1] = m
    end
  end
end
table.sort(members, function(a, b) return hexCmp(string.sub(a, 1, 16), string.sub(b, 1, 16)) < 0 end)
local out = { R_OK, 1 }
local seqs, last = 0, nil
for _, m in ipairs(members) do
  local seq = string.sub(m, 1, 16)
  if seq ~= last then
    if seqs == max then break end
    seqs = seqs + 1
    last = seq
  end
  out[#out + 1] = seq
  out[#out + 1] = string.sub(m, 17)
end
return out
