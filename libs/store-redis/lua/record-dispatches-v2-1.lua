--[[
  Step 1 of applyPage (ADR-0022 §1, §4), atomically on the shard's tag: reads the shard frontier F
  of the epoch and decides the page against it exactly as store-core `planPage` does (the wrapper
  re-runs `planPage` on the returned F to raise the identical error):
    - F exists and fromOffset > F + 1 → frontier gap, nothing written;
    - F exists and toOffset ≤ F       → behind (already applied), nothing written;
    - otherwise every candidate (first sight of a dispatch id in the page) is recorded in the
      dispatch index, the lowest offset winning: a live row (logical expiry > now) with an offset
      ≤ the candidate's is kept untouched (never renewed); an absent row, a logically expired one,
      or one with a higher offset is replaced by the candidate's, with its own absolute expiry.
  Index row dix:<epoch>:<dispatch id> = offset (16 hex) .. expiry (16 hex ms, createdAt +
  dispatchDedupeMs) .. digest (32 bytes); its physical expiry is set once at max(expiry, server
  now) + grace. Stored rows are validated before anything is written (damage → corrupt).
  Index keys are built from the shard prefix, which carries the same hash tag as KEYS[1].
  Layout guard (bucketed mailbox layout, frontier key mb-frontier:<epoch>): a frontier of the same
  epoch under the per-user-tag layout's name (frontier:<epoch>, same tag) means an older build
  applied this shard with user keys this build does not read → refused, nothing written.

  Input:
    KEYS[1] frontier   {sf:<shard>}:mb-frontier:<epoch>   (16-hex offset; absent = none yet)

    ARGV[1] now            caller clock, 16-hex ms
    ARGV[2] shard prefix   "<ns>:{sf:<shard>}:"
    ARGV[3] grace          physical clean-up grace, decimal ms
    ARGV[4] epoch          decimal
    ARGV[5] from offset    16 hex
    ARGV[6] to offset      16 hex
    ARGV[7] n              number of candidates; then per candidate 5 arguments:
              dispatch id (32 hex), offset (16 hex), digest (32 bytes), dedupe expiry (16 hex ms),
              dedupe expiry ms (decimal)

  Output:
    {0, F|'', off1, digest1, ...}   recorded: per candidate in order, its canonical (lowest live)
                                    offset and that sight's digest
    {1, F}                          behind: the page lies at or below F, nothing written
    {-13, F}                        frontier gap, nothing written
    {-7}                            the stored frontier or an index row is damaged, nothing written
    {-3, 'per-user-layout'}         the shard was applied by the per-user-tag layout, nothing written
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "physical-expiry"

local now, prefix, grace, epoch, from, to = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local n = tonumber(ARGV[7])
local FIRST = 8

if redis.call('EXISTS', prefix .. 'frontier:' .. epoch) == 1 then return { E_INVALID_STATE, 'per-user-layout' } end
local f = redis.call('GET', KEYS[1])
if f then
  if #f ~= 16 or not string.match(f, '^%x+$') then return { E_CORRUPT } end
  if hexCmp(from, hexInc(f)) > 0 then return { E_FRONTIER_GAP, f } end
  if hexCmp(to, f) <= 0 then return { R_ALREADY, f } end
end

local stored = {}
for i = 0, n - 1 do
  local v = redis.call('GET', prefix .. 'dix:' .. epoch .. ':' .. ARGV[FIRST + i * 5])
  if v and (#v ~= 64 or not string.match(string.sub(v, 1, 32), '^%x+$')) then return { E_CORRUPT } end
  stored[i] = v
end

local out = { R_OK, f or '' }
for i = 0, n - 1 do
  local at = FIRST + i * 5
  local off, digest, exp, expMs = ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]
  local v = stored[i]
  if v and hexCmp(string.sub(v, 17, 32), now) > 0 and hexCmp(string.sub(v, 1, 16), off) <= 0 then
    out[#out + 1] = string.sub(v, 1, 16)
    out[#out + 1] = string.sub(v, 33, 64)
  else
    local key = prefix .. 'dix:' .. epoch .. ':' .. ARGV[at]
    redis.call('SET', key, off .. exp .. digest)
    expireOnce(key, expMs, grace)
    out[#out + 1] = off
    out[#out + 1] = digest
  end
end
return out
