--[[
  Writes the retention meta after a read-side inspect (store-core `applyInspect`: expired ledger
  items consumed into the gap boundary with their bucket proofs' real max seq, never into trim),
  guarded by a compare-and-set on the whole meta AND on the bucket proof of every consumed day as
  read, and releases the proofs of the consumed days (one-time physical expiry: no ledger item
  refers to them any more). The proofs are part of the guard because the gap was chosen from them:
  an append that raised a consumed day's proof after the inspector read it (a writer whose clock is
  still before the day's expiry) must make this inspect read again, or its entry would lie above the
  gap in a day no ledger item names — skipped by every cursor without CursorExpired.

  Input:
    KEYS[1] retention meta hash   {mb:<bucket>}:u2:<tenant><user>:meta

    ARGV[1]      user prefix    "<ns>:{mb:<bucket>}:u2:<tenant><user>:"
    ARGV[2]      grace          physical clean-up grace, decimal ms
    ARGV[3..7]   expected meta  v, gen, insp, gap, ledger as read
    ARGV[8..12]  new meta       v, gen, insp, gap, ledger
    ARGV[13]     released       "day:expiryMs,..." consumed days
    ARGV[14..]   proofs as read one per released day, in its order: the day's proof zset as
                                `ZRANGE proof:<day> 0 -1 WITHSCORES` answered it, members and
                                scores joined by single spaces ('' = no proof)

  Output:
    {0}    written
    {-6}   CAS lost: a concurrent append or inspect changed the meta or a consumed day's proof
           (caller re-reads)
    {-10}  the proofs as read do not match the released days one for one (nothing written)
]]
--- @include "result-codes"
--- @include "physical-expiry"
--- @include "retention-meta"

if not metaUnchanged(KEYS[1], { ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7] }) then return { E_CAS_LOST } end
local i = 14
for day in string.gmatch(ARGV[13], '(%d+):%d+') do
  if ARGV[i] == nil then return { E_INVALID_INPUT } end
  if table.concat(redis.call('ZRANGE', ARGV[1] .. 'proof:' .. day, 0, -1, 'WITHSCORES'), ' ') ~= ARGV[i] then return { E_CAS_LOST } end
  i = i + 1
end
if i - 1 ~= #ARGV then return { E_INVALID_INPUT } end
writeMeta(KEYS[1], { ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12] })
releaseProofs(ARGV[1], ARGV[13], ARGV[2])
return { R_OK }
