--[[
  Appends a user's entries of one batch with their V4 retention facts, atomically:
    1. compare-and-set guard: the retention meta must still be what the caller read (else CAS lost:
       the caller re-reads and recomputes with store-core `applyAppend`);
    2. bucket proof of every entry: hash proof:<day>, field <epoch> = max seq (16 hex) .. expiry
       (16 hex), raised to the higher seq and the earlier expiry (`mergeBucketProof`);
    3. the new meta (consumed expired days → gap, today's item registered/raised, generation+1);
    4. every live entry: entry:<seq> (MailboxEntry bytes, overwritten whole, its physical expiry set
       once) and its member in the per-day index day:<epoch>:<day>; expired replays write no entry.
    5. proof keys of days in the new ledger lose any physical expiry (PERSIST); proof keys of days
       no item refers to any more (consumed, or expired replays) get one.
  Dynamic keys are built from the user prefix, which carries the same hash tag as KEYS[1].

  Input:
    KEYS[1] retention meta hash   {mu:<tenant><user>}:meta

    ARGV[1]     now           caller clock, 16-hex ms (unused by the writes; kept for tracing)
    ARGV[2]     user prefix   "<ns>:{mu:<tenant><user>}:"
    ARGV[3]     grace         physical clean-up grace, decimal ms
    ARGV[4..8]  expected meta v, gen, insp, gap, ledger as read ('' v = no meta yet)
    ARGV[9..13] new meta      v, gen, insp, gap, ledger ('' v = meta unchanged, no write)
    ARGV[14]    live days     "day,day,..." days present in the new ledger ('' = none)
    ARGV[15]    released      "day:expiryMs,..." proof days no ledger item refers to ('' = none)
    ARGV[16]    n             number of entries; then per entry 7 arguments:
                  epoch, day, seq (16 hex), expiry (16 hex), expiry ms (decimal), live ('1'|'0'),
                  entry bytes (MailboxEntry codec)

  Output:
    {0}    written
    {-6}   CAS lost: the meta changed since it was read (nothing written)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "physical-expiry"
--- @include "retention-meta"

local prefix, grace = ARGV[2], ARGV[3]
if not metaUnchanged(KEYS[1], { ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8] }) then return { E_CAS_LOST } end

local n = tonumber(ARGV[16])
for i = 0, n - 1 do
  local at = 17 + i * 7
  local epoch, day, seq, exp = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local proofKey = prefix .. 'proof:' .. day
  local old = redis.call('HGET', proofKey, epoch)
  local max, pexp = seq, exp
  if old then
    max = hexMax(string.sub(old, 1, 16), seq)
    pexp = hexMin(string.sub(old, 17, 32), exp)
  end
  redis.call('HSET', proofKey, epoch, max .. pexp)
end

if ARGV[9] ~= '' then writeMeta(KEYS[1], { ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13] }) end

for i = 0, n - 1 do
  local at = 17 + i * 7
  if ARGV[at + 5] == '1' then
    local epoch, day, seq, expMs = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 4]
    local entryKey = prefix .. 'entry:' .. seq
    local dayKey = prefix .. 'day:' .. epoch .. ':' .. day
    redis.call('SET', entryKey, ARGV[at + 6], 'KEEPTTL')
    expireOnce(entryKey, expMs, grace)
    redis.call('ZADD', dayKey, 0, seq)
    expireOnce(dayKey, expMs, grace)
  end
end

for day in string.gmatch(ARGV[14], '%d+') do redis.call('PERSIST', prefix .. 'proof:' .. day) end
releaseProofs(prefix, ARGV[15], grace)
return { R_OK }
