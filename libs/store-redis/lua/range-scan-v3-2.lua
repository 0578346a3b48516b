--[[
  The read of `rangeScan` after the epoch checks, atomically against concurrent appends:
    1. no retention meta → only the trim check (CursorExpired below trim), else "clean user";
    2. a ledger item whose absolute expiry ≤ now → NEEDS_INSPECT (the caller runs the inspect with
       store-core `applyInspect` and retries; nothing expired is ever read past);
    3. after < max(trim, gap) → CursorExpired with that boundary;
    4. the entries with after < seq ≤ upTo from the per-day indexes of the live ledger days of this
       epoch (members seq (16 hex) .. MailboxEntry bytes), merged ascending, read a few members at
       a time per day and no further than the page needs: the members of at most `max` seqs, and
       only up to the first member that takes the running payload bytes past `max bytes` (answered,
       so the reader checks the entry that ends its page; the first seq never ends it). `more` = 1
       when reading stopped early (a member may remain). A seq with two members (other bytes
       written under one seq) is answered twice and refused by the reader.
       Payload bytes of a member = its entry's length − 64 − 24 × event count (the MailboxEntry
       codec v1 layout: 64 fixed bytes, the event count as u32 at bytes 61…64, 24 fixed bytes per
       event); an entry too short for that counts its whole length (the reader refuses it anyway).

  Input:
    KEYS[1] retention meta hash   {mb:<bucket>}:u2:<tenant><user>:meta
    KEYS[2] trim                  {mb:<bucket>}:u2:<tenant><user>:trim   (16-hex seq)

    ARGV[1] now           caller clock, 16-hex ms
    ARGV[2] after         16-hex seq (exclusive)
    ARGV[3] up to         16-hex seq (inclusive)
    ARGV[4] max           seqs answered at most (≥ 1; the reader asks one more than its page can take)
    ARGV[5] epoch         the store's epoch (decimal)
    ARGV[6] user prefix   "<ns>:{mb:<bucket>}:u2:<tenant><user>:"
    ARGV[7] max bytes     payload byte budget (decimal ≥ 1), '' = none

  Output:
    {0, 0}                            clean user (no meta), cursor not below trim
    {0, 1, more, seq1, bytes1, ...}   entries ascending (a seq repeated: several members, damage);
                                      more = 1 when a member above the last one answered exists
    {-8, boundary}                    cursor expired: boundary = max(trim, gap), 16 hex
    {-9}                              an expired ledger item must be inspected first
    {-7}                              meta damaged (version, ledger blob)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "active-ledger"

local now, after, upTo, max = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local budget = ARGV[7] ~= '' and tonumber(ARGV[7]) or nil
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

if after == 'ffffffffffffffff' then return { R_OK, 1, 0 } end
local to = upTo == 'ffffffffffffffff' and '+' or '(' .. hexInc(upTo)

-- Payload bytes of a member (see the docblock).
local function payloadBytes(m)
  local n = #m - 16
  if n < 64 then return n end
  local c1, c2, c3, c4 = string.byte(m, 77, 80)
  local p = n - 64 - 24 * (((c1 * 256 + c2) * 256 + c3) * 256 + c4)
  if p < 0 then return n end
  return p
end

-- Members read so far (all days) and their bytes: the size of the next read follows from them.
local readCount, readBytes, bytes, seqs = 0, 0, 0, 0
local CHUNK_MAX = 64

-- How many members the next read of a day asks for: 1 before anything is known, then as many as the
-- rest of the budget is likely to hold (by the members' mean size so far) plus the one that ends it.
-- A chunk may read a few members past the end of the page (never more than CHUNK_MAX, and about
-- one when members are large), which are not answered.
local function chunk()
  local n = max - seqs + 1
  if budget then
    if readCount == 0 then return 1 end
    local mean = math.max(1, readBytes / readCount)
    n = math.min(n, math.floor(math.max(0, budget - bytes) / mean) + 1)
  end
  return math.max(1, math.min(CHUNK_MAX, n))
end

-- One cursor per live ledger day: its buffered members and where the next read starts (exclusive
-- of the last member read, so a read costs O(log N) whatever was read before).
local days = {}
for _, item in ipairs(ledger) do
  days[#days + 1] = { key = ARGV[6] .. 'day:' .. ARGV[5] .. ':' .. item.day, from = '[' .. hexInc(after), rows = {}, pos = 1, done = false }
end

local function head(d)
  if d.pos > #d.rows then
    if d.done then return nil end
    local want = chunk()
    d.rows = redis.call('ZRANGEBYLEX', d.key, d.from, to, 'LIMIT', 0, want)
    d.pos = 1
    if #d.rows < want then d.done = true end
    if #d.rows == 0 then return nil end
    d.from = '(' .. d.rows[#d.rows]
    for _, m in ipairs(d.rows) do
      readCount = readCount + 1
      readBytes = readBytes + #m
    end
  end
  return d.rows[d.pos]
end

local out = { R_OK, 1, 0 }
local seen, last = {}, nil
while true do
  local best, bestMember = nil, nil
  for _, d in ipairs(days) do
    local m = head(d)
    if m and (not bestMember or string.sub(m, 1, 16) < string.sub(bestMember, 1, 16)) then best, bestMember = d, m end
  end
  if not best then break end
  local seq = string.sub(bestMember, 1, 16)
  if seq ~= last then
    if seqs == max then
      out[3] = 1
      break
    end
    seqs = seqs + 1
    last = seq
  end
  best.pos = best.pos + 1
  if not seen[bestMember] then
    seen[bestMember] = true
    bytes = bytes + payloadBytes(bestMember)
    out[#out + 1] = seq
    out[#out + 1] = string.sub(bestMember, 17)
    if budget and seqs > 1 and bytes > budget then
      out[3] = 1
      break
    end
  end
end
return out
