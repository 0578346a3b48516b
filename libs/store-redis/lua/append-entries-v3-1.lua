--[[
  Appends the entries of several users of one mailbox bucket (a page step or an appendBatch) with
  their V4 retention facts; every user's step is atomic (the whole call is) and independent of the
  others' (each user answers on its own). Per user, the retention meta is touched only when the
  user's ledger must change (ADR-0022 §5):
    fast path — taken whenever it holds, whatever the mode: the meta is v4 and every entry is live
      (expiry > now) on a day whose ledger item is live and expires no later than the entry. The
      meta is neither compared nor written: bucket proofs are raised and the entries written.
    mode 'c' otherwise — compare-and-set: the meta must still equal the expected values (what the
      caller planned from with store-core `applyAppend`), else CAS lost. Then bucket proofs → the new
      meta (when given) → live entries; proof keys of ledger days lose any physical expiry, proof
      keys no item refers to any more get one.
    mode 'f' otherwise — CAS lost (the caller expected the fast path and must plan).
  Bucket proof: hash proof:<day>, field <epoch> = max seq (16 hex) .. expiry (16 hex), raised to the
  higher seq and the earlier expiry (store-core `mergeBucketProof`), once per day of the user's
  entries. Entry: entry:<seq> = MailboxEntry bytes, overwritten whole with its physical expiry
  (logical expiry + grace, computed by the caller: the same value on every rewrite, so never
  renewed); member <seq> of the per-day index day:<epoch>:<day> (physical expiry set NX when the
  call writes the first proof of that day and epoch, and on every compare-and-set). An expired
  replay (live '0', mode 'c' only) writes its proof and no entry.
  A user's keys are "<bucket prefix>u:<tenant><user>:<suffix>", the bucket prefix being KEYS[1]
  without its 'bucket' suffix: every key shares the bucket's hash tag.

  Input:
    KEYS[1] bucket name   <ns>:{mb:<bucket>}:bucket   (never read or written: it names the slot)

    ARGV[1]  now           caller clock, 16-hex ms
    ARGV[2]  epoch         the store's epoch (decimal)
    ARGV[3]  users         number of users; then per user, in order:
      user      tenant id .. user id (64 hex)
      mode      'f' fast path only, 'c' fast path or compare-and-set
      n         number of entries; then per entry 2 arguments:
                  header   seq (16 hex) .. expiry (16 hex) .. live ('1'|'0') .. physical expiry ms
                           (decimal) .. ':' .. day (decimal)
                  bytes    the entry (MailboxEntry codec)
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
    {-10}                                 malformed arguments (nothing written)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "ledger-day"
--- @include "physical-expiry"
--- @include "retention-meta"

local now, epoch = ARGV[1], ARGV[2]
local bucketPrefix = string.sub(KEYS[1], 1, -7)
local nowMs = fastMs(now)

-- Every user's arguments are parsed before anything is written (a malformed call writes nothing).
local users = {}
local at = 4
for u = 1, tonumber(ARGV[3]) do
  local id, n = ARGV[at], tonumber(ARGV[at + 2])
  if not n or not id or #id ~= 64 or not string.match(id, '^%x+$') then return { E_INVALID_INPUT } end
  local user = { prefix = bucketPrefix .. 'u:' .. id .. ':', mode = ARGV[at + 1], n = n, first = at + 3, entries = {} }
  for i = 0, n - 1 do
    local h = ARGV[at + 3 + 2 * i]
    local physical, day = string.match(h, '^(%d+):(%d+)$', 34)
    if not day then return { E_INVALID_INPUT } end
    user.entries[i] = { seq = string.sub(h, 1, 16), exp = string.sub(h, 17, 32), live = string.sub(h, 33, 33) == '1', physical = physical, day = day }
  end
  at = at + 3 + 2 * n
  if user.mode == 'c' then
    user.tail = at
    at = at + 13
  elseif user.mode ~= 'f' then
    return { E_INVALID_INPUT }
  end
  users[u] = user
end
if at - 1 ~= #ARGV then return { E_INVALID_INPUT } end

local function fastPath(user, cur)
  if cur[1] ~= '4' or not nowMs then return false end
  for i = 0, user.n - 1 do
    local e = user.entries[i]
    local exp = fastMs(e.exp)
    if not exp or exp <= nowMs then return false end
    local itemExp = ledgerDayExpiry(cur[2], tonumber(e.day))
    if not itemExp or itemExp <= nowMs or itemExp > exp then return false end
  end
  return true
end

-- Bucket proofs: one read and at most one write per day of the user's entries. Returns the days
-- whose proof field of this epoch did not exist yet (their day index gets its physical expiry).
local function raiseProofs(user)
  local days, fresh = {}, {}
  for i = 0, user.n - 1 do
    local e = user.entries[i]
    local d = days[e.day]
    if d then
      d.max = hexMax(d.max, e.seq)
      d.exp = hexMin(d.exp, e.exp)
    else
      days[e.day] = { max = e.seq, exp = e.exp }
    end
  end
  for day, d in pairs(days) do
    local key = user.prefix .. 'proof:' .. day
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
local function writeEntries(user, all, fresh, always)
  for i = 0, user.n - 1 do
    local e = user.entries[i]
    if all or e.live then
      redis.call('SET', user.prefix .. 'entry:' .. e.seq, ARGV[user.first + 1 + 2 * i], 'PXAT', e.physical)
      local dayKey = user.prefix .. 'day:' .. epoch .. ':' .. e.day
      redis.call('ZADD', dayKey, 0, e.seq)
      if always or fresh[e.day] then
        fresh[e.day] = nil
        redis.call('PEXPIREAT', dayKey, e.physical, 'NX')
      end
    end
  end
end

local function appendUser(user)
  local meta = user.prefix .. 'meta'
  if fastPath(user, redis.call('HMGET', meta, 'v', 'ledger')) then
    writeEntries(user, true, raiseProofs(user), false)
    if user.mode ~= 'c' then return { R_OK, 1 } end
    local m = redis.call('HMGET', meta, 'v', 'gen', 'insp', 'gap', 'ledger')
    return { R_OK, 1, m[1], m[2], m[3], m[4], m[5] }
  end
  local m = redis.call('HMGET', meta, 'v', 'gen', 'insp', 'gap', 'ledger')
  local tail = user.tail
  local same = user.mode == 'c'
  if same and ARGV[tail] == '' then
    same = not m[1] and not m[2] and not m[3] and not m[4] and not m[5]
  elseif same then
    for i = 1, 5 do
      if m[i] ~= ARGV[tail + i - 1] then same = false end
    end
  end
  if not same then return { E_CAS_LOST, m[1], m[2], m[3], m[4], m[5] } end
  raiseProofs(user)
  if ARGV[tail + 5] ~= '' then writeMeta(meta, { ARGV[tail + 5], ARGV[tail + 6], ARGV[tail + 7], ARGV[tail + 8], ARGV[tail + 9] }) end
  writeEntries(user, false, {}, true)
  for day in string.gmatch(ARGV[tail + 10], '%d+') do redis.call('PERSIST', user.prefix .. 'proof:' .. day) end
  releaseProofs(user.prefix, ARGV[tail + 11], ARGV[tail + 12])
  return { R_OK, 0 }
end

local out = { R_OK }
for u = 1, #users do out[u + 1] = appendUser(users[u]) end
return out
