--[[
  Appends the entries of several users of one mailbox bucket (a page step or an appendBatch) with
  their V4 retention facts; every user's step is atomic (the whole call is) and independent of the
  others' (each user answers on its own). Per user, the retention meta is read once per call and
  touched only when the user's ledger must change (ADR-0022 §5):
    fast path — taken whenever it holds, whatever the mode: the meta is v4 and every entry lives
      past the horizon (expiry > now + clock-skew allowance + safety margin, ARGV[2]) on a day whose
      ledger item lives past the horizon too and expires no later than the entry. The meta is
      neither compared nor written: bucket proofs are raised and the entries written. The horizon
      keeps the fast path away from a day that another process — whose clock may run ahead by the
      skew — could be inspecting (consuming) right now: near its expiry an entry takes the
      compare-and-set, which changes the meta (the item's max seq) and so fails that inspection's
      guard (the Scylla store's and the plain path's margin, ADR-0022 §5).
    mode 'c' otherwise — compare-and-set: the meta must still equal the expected values (what the
      caller planned from with store-core `applyAppend`), else CAS lost. Then bucket proofs → the new
      meta (when given) → live entries; proof keys of ledger days lose any physical expiry, proof
      keys no item refers to any more get one.
    mode 'f' otherwise — CAS lost (the caller expected the fast path and must plan).
  Bucket proof: zset proof:<day>, member <epoch>:<expiry (16 hex)>, score = the max seq's offset
  part (seq − epoch·2^47, below 2^47: exact in a double), raised by one `ZADD … GT` per (day,
  expiry) of the user's entries (store-core `mergeBucketProof`: the reader takes the highest score
  and the earliest expiry of the epoch's members). Entry: member <seq (16 hex)><MailboxEntry bytes>
  of the per-day index day:<epoch>:<day> (lex order = seq order), one `ZADD` per day of the user's
  entries. Rewriting the same bytes is a no-op. Other bytes under a written seq: write 'add'
  (applyPage, where the dispatch index proves one record per seq) adds a second member, which
  `range-scan-v3` answers and the reader refuses as corrupt; write 'replace' (appendBatch, whose
  replay overwrites the group) first removes the seq's members (`ZREMRANGEBYLEX`, per entry).
  The day key carries the physical expiry of its entries (logical expiry + grace, computed by the
  caller: the same value on every rewrite), set when the call adds a new proof member (a new (day,
  epoch, expiry)), on every compare-and-set and on every 'replace': `NX`, else `GT` (a key lives to
  its latest entry; readers filter by logical expiry). An expired replay (live '0', mode 'c' only)
  writes its proof and no entry.
  A user's keys are "<bucket prefix>u2:<tenant><user>:<suffix>", the bucket prefix being KEYS[1]
  without its 'bucket' suffix: every key shares the bucket's hash tag.

  Input:
    KEYS[1] bucket name   <ns>:{mb:<bucket>}:bucket   (never read or written: it names the slot)

    ARGV[1]  now           caller clock, 16-hex ms
    ARGV[2]  horizon       now + clock-skew allowance + fast-path safety margin, 16-hex ms
    ARGV[3]  epoch         the store's epoch (decimal)
    ARGV[4]  write         'add' | 'replace' (see above)
    ARGV[5]  users         number of users; then per user, in order:
      user      tenant id .. user id (64 hex)
      mode      'f' fast path only, 'c' fast path or compare-and-set
      n         number of entries; then per entry 2 arguments:
                  header   seq (16 hex) .. expiry (16 hex) .. live ('1'|'0') .. physical expiry ms
                           (decimal) .. ':' .. day (decimal); equal headers (the recipients of one
                           dispatch) are parsed once per call
                  member   seq (16 hex, the header's) .. the entry (MailboxEntry codec)
      mode 'c' only, after the entries, 13 arguments:
        expected meta  v, gen, insp, gap, ledger as planned from ('' v = no meta yet)
        new meta       v, gen, insp, gap, ledger ('' v = meta unchanged, no write)
        live days      "day,day,..." days present in the new ledger ('' = none)
        released       "day:expiryMs,..." proof days no ledger item refers to ('' = none)
        grace          physical clean-up grace of released proofs, decimal ms

  Output:
    {0, r1, r2, ...}  one reply per user, in order:
      {0, 1}                              written by the fast path (mode 'f')
      {0, 1, v, gen, insp, gap, ledger}   written by the fast path (mode 'c'): the meta as stored
      {0, 0}                              written under the compare-and-set
      {-6, v, gen, insp, gap, ledger}     CAS lost (nothing of this user written): the meta as
                                          stored now (ends at the first absent field), to plan again
    {-10}                                 malformed arguments (a horizon before now included), a
                                          header whose seq is not hex or not of the call's epoch
                                          included (nothing written)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "ledger-day"
--- @include "physical-expiry"
--- @include "retention-meta"

local now, epoch, replace = ARGV[1], ARGV[3], ARGV[4] == 'replace'
if not replace and ARGV[4] ~= 'add' then return { E_INVALID_INPUT } end
local userPrefix = string.sub(KEYS[1], 1, -7) .. 'u2:'
local horizonMs = fastMs(ARGV[2])
local function isHex16(v) return #v == 16 and string.match(v, '^%x+$') ~= nil end
if not isHex16(ARGV[2]) or not isHex16(now) or hexCmp(ARGV[2], now) < 0 then return { E_INVALID_INPUT } end

-- seq (16 hex) minus its epoch part: the low 47 bits, exact in a double.
local OFFSET_SPAN = 140737488355328

-- What one entry header says, parsed once per distinct header: ARGV strings are interned, and the
-- entries of one dispatch share their header, so a page's users share one parse. The key suffixes
-- and the proof member are built here once too.
local headers = {}
local epochNum = tonumber(epoch)
local function parseHeader(h)
  local physical, day = string.match(h, '^(%d+):(%d+)$', 34)
  if not day then return nil end
  local seq, exp = string.sub(h, 1, 16), string.sub(h, 17, 32)
  -- bits 63…48 (4 hex) and 47…0 (12 hex); the seq's epoch (bits 62…47) must be the call's
  local high, low = tonumber(string.sub(seq, 1, 4), 16), tonumber(string.sub(seq, 5), 16)
  if not high or not low or #seq ~= 16 or not string.match(seq, '^%x+$') then return nil end
  if high * 2 + math.floor(low / OFFSET_SPAN) ~= epochNum then return nil end
  local score = low % OFFSET_SPAN
  return {
    seq = seq, exp = exp, expMs = fastMs(exp), live = string.byte(h, 33) == 49, physical = physical, day = day,
    dayNum = tonumber(day), score = score, scoreArg = string.format('%.0f', score),
    proofKey = ':proof:' .. day, proofMember = epoch .. ':' .. exp, dayKey = ':day:' .. epoch .. ':' .. day,
    proofGroup = day .. ':' .. exp, dayExpiry = day .. ':' .. physical,
  }
end

-- Every user's arguments are parsed before anything is written (a malformed call writes nothing);
-- a user is remembered by the index of its first argument.
local starts = {}
local at = 6
for u = 1, tonumber(ARGV[5]) do
  local id, mode, n = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2])
  if not n or not id or #id ~= 64 or not string.match(id, '^%x+$') then return { E_INVALID_INPUT } end
  for i = at + 3, at + 1 + 2 * n, 2 do
    local h = ARGV[i]
    if not headers[h] then
      local f = h and parseHeader(h)
      if not f then return { E_INVALID_INPUT } end
      headers[h] = f
    end
  end
  starts[u] = at
  at = at + 3 + 2 * n
  if mode == 'c' then
    at = at + 13
  elseif mode ~= 'f' then
    return { E_INVALID_INPUT }
  end
end
if at - 1 ~= #ARGV then return { E_INVALID_INPUT } end

-- The fast path holds for the user's n entries (headers at first, first + 2, ...) against its meta
-- `cur`: every entry and its day's ledger item live past the horizon.
local function fastPath(first, n, cur)
  if cur[1] ~= '4' or not horizonMs then return false end
  local ledger, lastDay, itemExp = cur[2], nil, nil
  for i = first, first + 2 * n - 2, 2 do
    local f = headers[ARGV[i]]
    local exp = f.expMs
    if not exp or exp <= horizonMs then return false end
    if f.dayNum ~= lastDay then
      lastDay, itemExp = f.dayNum, ledgerDayExpiry(ledger, f.dayNum)
    end
    if not itemExp or itemExp <= horizonMs or itemExp > exp then return false end
  end
  return true
end

-- Physical expiry of a day index: set once, or raised to a later entry's (never lowered).
local function expireDay(key, physical)
  if redis.call('PEXPIREAT', key, physical, 'NX') == 0 then redis.call('PEXPIREAT', key, physical, 'GT') end
end

-- One entry of a user (the common warm step): its proof, its entry, its day's expiry when needed.
local function writeOne(prefix, f, member)
  local added = redis.call('ZADD', prefix .. f.proofKey, 'GT', f.scoreArg, f.proofMember)
  local key = prefix .. f.dayKey
  if replace then redis.call('ZREMRANGEBYLEX', key, '[' .. f.seq, '(' .. hexInc(f.seq)) end
  redis.call('ZADD', key, 0, member)
  if replace or added == 1 then expireDay(key, f.physical) end
end

-- Bucket proofs: one ZADD GT per (day, expiry) of the user's entries, at the group's highest score.
-- Returns the headers (each group's first) whose proof gained a member (a new day, epoch or
-- expiry): their day index's physical expiry is set.
local function raiseProofs(prefix, first, n)
  local best, firsts, fresh = {}, {}, {}
  for i = first, first + 2 * n - 2, 2 do
    local f = headers[ARGV[i]]
    local g = best[f.proofGroup]
    if not g then
      best[f.proofGroup] = f
      firsts[#firsts + 1] = f
    elseif f.score > g.score then
      best[f.proofGroup] = f
    end
  end
  for _, f in ipairs(firsts) do
    local g = best[f.proofGroup]
    if redis.call('ZADD', prefix .. g.proofKey, 'GT', g.scoreArg, g.proofMember) == 1 then fresh[#fresh + 1] = f end
  end
  return fresh
end

-- Every entry (all = true: the fast path proved them live) or those flagged live: one ZADD per day
-- of the members as given. Returns the headers of every entry written.
local function writeEntries(prefix, first, n, all)
  local byDay, order, written = {}, {}, {}
  for i = first, first + 2 * n - 2, 2 do
    local f = headers[ARGV[i]]
    if all or f.live then
      local args = byDay[f.day]
      if not args then
        args = {}
        byDay[f.day] = args
        order[#order + 1] = f
      end
      args[#args + 1] = 0
      args[#args + 1] = ARGV[i + 1]
      if replace then redis.call('ZREMRANGEBYLEX', prefix .. f.dayKey, '[' .. f.seq, '(' .. hexInc(f.seq)) end
      written[#written + 1] = f
    end
  end
  for _, f in ipairs(order) do
    redis.call('ZADD', prefix .. f.dayKey, unpack(byDay[f.day]))
  end
  return written
end

-- The physical expiry of the day index of every entry written, once per (day, expiry).
local function expireWritten(prefix, written)
  local done = {}
  for _, f in ipairs(written) do
    if not done[f.dayExpiry] then
      done[f.dayExpiry] = true
      expireDay(prefix .. f.dayKey, f.physical)
    end
  end
end

local FAST_DONE = { R_OK, 1 }

local function appendUser(at)
  local prefix, mode, n = userPrefix .. ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2])
  local first = at + 3
  local meta = prefix .. ':meta'
  if fastPath(first, n, redis.call('HMGET', meta, 'v', 'ledger')) then
    if n == 1 then
      writeOne(prefix, headers[ARGV[first]], ARGV[first + 1])
    else
      local fresh = raiseProofs(prefix, first, n)
      local written = writeEntries(prefix, first, n, true)
      -- 'replace' may have emptied (deleted) a day key before writing it again
      if replace then
        expireWritten(prefix, written)
      else
        for _, f in ipairs(fresh) do expireDay(prefix .. f.dayKey, f.physical) end
      end
    end
    if mode ~= 'c' then return FAST_DONE end
    local m = redis.call('HMGET', meta, 'v', 'gen', 'insp', 'gap', 'ledger')
    return { R_OK, 1, m[1], m[2], m[3], m[4], m[5] }
  end
  local m = redis.call('HMGET', meta, 'v', 'gen', 'insp', 'gap', 'ledger')
  local tail = first + 2 * n
  local same = mode == 'c'
  if same and ARGV[tail] == '' then
    same = not m[1] and not m[2] and not m[3] and not m[4] and not m[5]
  elseif same then
    for i = 1, 5 do
      if m[i] ~= ARGV[tail + i - 1] then same = false end
    end
  end
  if not same then return { E_CAS_LOST, m[1], m[2], m[3], m[4], m[5] } end
  raiseProofs(prefix, first, n)
  if ARGV[tail + 5] ~= '' then writeMeta(meta, { ARGV[tail + 5], ARGV[tail + 6], ARGV[tail + 7], ARGV[tail + 8], ARGV[tail + 9] }) end
  expireWritten(prefix, writeEntries(prefix, first, n, false))
  for day in string.gmatch(ARGV[tail + 10], '%d+') do redis.call('PERSIST', prefix .. ':proof:' .. day) end
  releaseProofs(prefix .. ':', ARGV[tail + 11], ARGV[tail + 12])
  return { R_OK, 0 }
end

local out = { R_OK }
for u = 1, #starts do out[u + 1] = appendUser(starts[u]) end
return out
