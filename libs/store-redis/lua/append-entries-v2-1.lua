--[[
  Appends one user's entries (of a page or an appendBatch) with their V4 retention facts,
  atomically, touching the retention meta only when the user's ledger must change (ADR-0022 §5):
    fast path — taken whenever it holds, whatever the mode: the meta is v4 and every entry is live
      (expiry > now) on a day whose ledger item is live and expires no later than the entry. The
      meta is neither compared nor written: bucket proofs are raised and the entries written.
    mode 'c' otherwise — compare-and-set: the meta must still equal the expected values (what the
      caller planned from with store-core `applyAppend`), else CAS lost. Then bucket proofs → the new
      meta (when given) → live entries; proof keys of ledger days lose any physical expiry, proof
      keys no item refers to any more get one.
    mode 'f' otherwise — CAS lost (the caller expected the fast path and must plan).
  Bucket proof: hash proof:<day>, field <epoch> = max seq (16 hex) .. expiry (16 hex), raised to the
  higher seq and the earlier expiry (store-core `mergeBucketProof`), once per day of the call. Entry:
  entry:<seq> = MailboxEntry bytes, overwritten whole with its physical expiry (logical expiry +
  grace, computed by the caller: the same value on every rewrite, so never renewed); member <seq>
  of the per-day index day:<epoch>:<day> (physical expiry set NX when the call writes the first
  proof of that day and epoch, and on every compare-and-set). An expired replay (live '0', mode
  'c' only) writes its proof and no entry.
  Dynamic keys are built from KEYS[1] without its 'meta' suffix (the user prefix, same hash tag).

  Input:
    KEYS[1] retention meta hash   {mu:<tenant><user>}:meta

    ARGV[1]  now           caller clock, 16-hex ms
    ARGV[2]  epoch         the store's epoch (decimal)
    ARGV[3]  mode          'f' fast path only, 'c' fast path or compare-and-set
    ARGV[4]  n             number of entries; then per entry 2 arguments:
               header   seq (16 hex) .. expiry (16 hex) .. live ('1'|'0') .. physical expiry ms
                        (decimal) .. ':' .. day (decimal)
               bytes    the entry (MailboxEntry codec)
    mode 'c' only, after the entries (k = 5 + 2n):
    ARGV[k..k+4]    expected meta  v, gen, insp, gap, ledger as planned from ('' v = no meta yet)
    ARGV[k+5..k+9]  new meta       v, gen, insp, gap, ledger ('' v = meta unchanged, no write)
    ARGV[k+10]      live days      "day,day,..." days present in the new ledger ('' = none)
    ARGV[k+11]      released       "day:expiryMs,..." proof days no ledger item refers to ('' = none)
    ARGV[k+12]      grace          physical clean-up grace of released proofs, decimal ms

  Output:
    {0, 1}                              written by the fast path (mode 'f')
    {0, 1, v, gen, insp, gap, ledger}   written by the fast path (mode 'c'): the meta as stored
    {0, 0}                              written under the compare-and-set
    {-6, v, gen, insp, gap, ledger}     CAS lost (nothing written): the meta as stored now (nil
                                        fields when absent), to plan again from
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "ledger-day"

local now, epoch, mode = ARGV[1], ARGV[2], ARGV[3]
local prefix = string.sub(KEYS[1], 1, -5)
local n = tonumber(ARGV[4])
local tail = 5 + 2 * n
local cur = redis.call('HMGET', KEYS[1], 'v', 'ledger')

-- Each entry's header, parsed once: seq, expiry, live, physical expiry ms, day.
local entries = {}
for i = 0, n - 1 do
  local h = ARGV[5 + 2 * i]
  local physical, day = string.match(h, '^(%d+):(%d+)$', 34)
  entries[i] = { seq = string.sub(h, 1, 16), exp = string.sub(h, 17, 32), live = string.sub(h, 33, 33) == '1', physical = physical, day = day }
end

local function fastPath()
  local nowMs = fastMs(now)
  if cur[1] ~= '4' or not nowMs then return false end
  for i = 0, n - 1 do
    local e = entries[i]
    local exp = fastMs(e.exp)
    if not exp or exp <= nowMs then return false end
    local itemExp = ledgerDayExpiry(cur[2], tonumber(e.day))
    if not itemExp or itemExp <= nowMs or itemExp > exp then return false end
  end
  return true
end

-- Bucket proofs: one read and at most one write per day of the call. Returns the days whose proof
-- field of this epoch did not exist yet (their day index gets its physical expiry).
local function raiseProofs()
  local days, fresh = {}, {}
  for i = 0, n - 1 do
    local e = entries[i]
    local d = days[e.day]
    if d then
      d.max = hexMax(d.max, e.seq)
      d.exp = hexMin(d.exp, e.exp)
    else
      days[e.day] = { max = e.seq, exp = e.exp }
    end
  end
  for day, d in pairs(days) do
    local key = prefix .. 'proof:' .. day
    local old = redis.call('HGET', key, epoch)
    local max, exp = d.max, d.exp
    if old then
      max = hexMax(string.sub(old, 1, 16), max)
      exp = hexMin(string.sub(old, 17, 32), exp)
    else
      fresh[day] = true
    end
    if old ~= max .. exp then redis.call('HSET', key, epoch, max .. exp) end
  end
  return fresh
end

-- Every entry (all = true: the fast path proved them live) or those flagged live. A day index gets
-- its physical expiry (NX) with the first entry of its (day, epoch), or always when `always`.
local function writeEntries(all, fresh, always)
  for i = 0, n - 1 do
    local e = entries[i]
    if all or e.live then
      redis.call('SET', prefix .. 'entry:' .. e.seq, ARGV[6 + 2 * i], 'PXAT', e.physical)
      local dayKey = prefix .. 'day:' .. epoch .. ':' .. e.day
      redis.call('ZADD', dayKey, 0, e.seq)
      if always or fresh[e.day] then
        fresh[e.day] = nil
        redis.call('PEXPIREAT', dayKey, e.physical, 'NX')
      end
    end
  end
end

local function fullMeta()
  return redis.call('HMGET', KEYS[1], 'v', 'gen', 'insp', 'gap', 'ledger')
end

if fastPath() then
  writeEntries(true, raiseProofs(), false)
  if mode ~= 'c' then return { R_OK, 1 } end
  local m = fullMeta()
  return { R_OK, 1, m[1], m[2], m[3], m[4], m[5] }
end
local m = fullMeta()
local same = mode == 'c'
if same and ARGV[tail] == '' then
  same = not m[1] and not m[2] and not m[3] and not m[4] and not m[5]
elseif same then
  for i = 1, 5 do
    if m[i] ~= ARGV[tail + i - 1] then same = false end
  end
end
if not same then return { E_CAS_LOST, m[1], m[2], m[3], m[4], m[5] } end

-- The compare-and-set path only (its helpers are not even defined on the fast path).
--- @include "physical-expiry"
--- @include "retention-meta"
raiseProofs()
if ARGV[tail + 5] ~= '' then writeMeta(KEYS[1], { ARGV[tail + 5], ARGV[tail + 6], ARGV[tail + 7], ARGV[tail + 8], ARGV[tail + 9] }) end
writeEntries(false, {}, true)
for day in string.gmatch(ARGV[tail + 10], '%d+') do redis.call('PERSIST', prefix .. 'proof:' .. day) end
releaseProofs(prefix, ARGV[tail + 11], ARGV[tail + 12])
return { R_OK, 0 }
