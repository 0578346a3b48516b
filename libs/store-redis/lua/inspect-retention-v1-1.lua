--[[
  Writes the retention meta after a read-side inspect (store-core `applyInspect`: expired ledger
  items consumed into the gap boundary with their bucket proofs' real max seq, never into trim),
  guarded by a compare-and-set on the whole meta as read, and releases the proofs of the consumed
  days (one-time physical expiry: no ledger item refers to them any more).

  Input:
    KEYS[1] retention meta hash   {mb:<bucket>}:u2:<tenant><user>:meta

    ARGV[1]      user prefix    "<ns>:{mb:<bucket>}:u2:<tenant><user>:"
    ARGV[2]      grace          physical clean-up grace, decimal ms
    ARGV[3..7]   expected meta  v, gen, insp, gap, ledger as read
    ARGV[8..12]  new meta       v, gen, insp, gap, ledger
    ARGV[13]     released       "day:expiryMs,..." consumed days

  Output:
    {0}    written
    {-6}   CAS lost: a concurrent append or inspect changed the meta (caller re-reads)
]]
--- @include "result-codes"
--- @include "physical-expiry"
--- @include "retention-meta"

if not metaUnchanged(KEYS[1], { ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7] }) then return { E_CAS_LOST } end
writeMeta(KEYS[1], { ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12] })
releaseProofs(ARGV[1], ARGV[13], ARGV[2])
return { R_OK }
