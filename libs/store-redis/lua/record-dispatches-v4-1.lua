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
  dispatchDedupeMs) .. digest (32 bytes); its physical expiry is written with it (`SET … PXAT`) at
  max(expiry, server now) + grace; a live row is never rewritten, so never renewed. Stored rows are
  validated before anything is written (damage → corrupt).
  Index keys are built from the shard prefix, which carries the same hash tag as KEYS[1].
  Layout guard (day-indexed entries, frontier key mbd-frontier:<epoch>): a frontier of the same
  epoch under an older layout's name (same tag) means an older build applied this shard with user
  keys this build does not read → refused, nothing written: frontier:<epoch> (per-user tags,
  {mu:<tenant><user>}), mb-frontier:<epoch> (buckets with one key per entry).

  Input:
    KEYS[1] frontier   {sf:<shard>}:mbd-frontier:<epoch>   (16-hex offset; absent = none yet)

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
    {0, F|'', run id, off1, digest1, ...}
                                    recorded: the server's run id (40 hex, `INFO server`: the
                                    frontier write checks the page ran on one server process), then
                                    per candidate in order, its canonical (lowest live) offset and
                                    that sight's digest
    {1, F}                          behind: the page lies at or below F, nothing written
    {-13, F}                        frontier gap, nothing written
    {-7}                            the stored frontier or an index row is damaged, nothing written
    {-3, layout}                    the shard was applied by an older layout, nothing written:
                                    'per-user-layout' or 'entry-key-layout'
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "physical-expiry"
--- @include "server-run-id"

local now, prefix, grace, epoch, from, to = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local n = tonumber(ARGV[7])
local FIRST = 8

if redis.call('EXISTS', prefix .. 'frontier:' .. epoch) == 1 then return { E_INVALID_STATE, 'per-user-layout' } end
if redis.call('EXISTS', prefix .. 'mb-frontier:' .. epoch) == 1 then return { E_INVALID_STATE, 'entry-key-layout' } end
local f = redis.call('GET', KEYS[1])
if f then
  if #f ~= 16 or not string.match(f, '^%x+$') then return { E_CORRUPT } end
  if hexCmp(from, hexInc(f)) > 0 then return { E_FRONTIER_GAP, f } end
  if hexCmp(to, f) <= 0 then return { R_ALREADY, f } end
end

-- The stored rows (validated before anything is written); each candidate's key is built once.
local dix = prefix .. 'dix:' .. epoch .. ':'
local keys, stored = {}, {}
for i = 1, n do
  local key = dix .. ARGV[FIRST + (i - 1) * 5]
  local v = redis.call('GET', key)
  if v and (#v ~= 64 or not string.match(string.sub(v, 1, 32), '^%x+$')) then return { E_CORRUPT } end
  keys[i], stored[i] = key, v
end

local out, o = { R_OK, f or '', serverRunId() }, 3
local graceMs = tonumber(grace)
for i = 1, n do
  local at = FIRST + (i - 1) * 5
  local off, digest = ARGV[at + 1], ARGV[at + 2]
  local v = stored[i]
  if v and hexCmp(string.sub(v, 17, 32), now) > 0 and hexCmp(string.sub(v, 1, 16), off) <= 0 then
    out[o + 1] = string.sub(v, 1, 16)
    out[o + 2] = string.sub(v, 33, 64)
  else
    local pxat = math.max(tonumber(ARGV[at + 4]), serverNowMs()) + graceMs
    redis.call('SET', keys[i], off .. ARGV[at + 3] .. digest, 'PXAT', string.format('%.0f', pxat))
    out[o + 1] = off
    out[o + 2] = digest
  end
  o = o + 2
end
return out
