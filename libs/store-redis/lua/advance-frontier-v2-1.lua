--[[
  Step 3 of applyPage (ADR-0022 §2): moves the shard frontier of one epoch to `offset` unless it
  is already there or beyond (compare-and-keep-max: an older or zombie write can never lower it),
  and only over what this page's step 1 saw. The caller writes it only after every entry of its page
  was acknowledged; those acknowledgements prove nothing when the server lost writes since step 1
  (a restart under `appendfsync everysec`, a restored backup, a promoted replica, keys removed
  behind the store), so before raising it checks, atomically:
    - the server is the process step 1 ran on (run id): a restart between the steps may have lost
      the page's entries while keeping an older frontier — the page must be applied again;
    - the stored frontier did not go back: it is still at least the one step 1 read (or, step 1
      having read none, none or one reaching fromOffset − 1). A frontier that vanished or went back
      means lost writes below this page: raising it would cross that hole for good.

  Input:
    KEYS[1] frontier   {sf:<shard>}:mbd-frontier:<epoch>   (16-hex offset; absent = none yet)

    ARGV[1] offset     16 hex, the page's toOffset
    ARGV[2] from       16 hex, the page's fromOffset
    ARGV[3] expected   16 hex, the frontier step 1 read ('' = none)
    ARGV[4] run id     the server run id step 1 answered

  Output:
    {0, F}            raised: F = offset
    {1, F}            unchanged: the stored F ≥ offset
    {-6, run id}      the server is another process than step 1's (restarted, restored, promoted):
                      nothing written, the page must be applied again
    {-13, F | ''}     the stored frontier went back below what step 1 read (or vanished): nothing
                      written, the shard stalls (frontier gap)
    {-7}              the stored frontier is damaged (nothing written)
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "server-run-id"

local offset, from, expected = ARGV[1], ARGV[2], ARGV[3]
local runId = serverRunId()
if runId ~= ARGV[4] then return { E_CAS_LOST, runId } end
local cur = redis.call('GET', KEYS[1])
if cur and (#cur ~= 16 or not string.match(cur, '^%x+$')) then return { E_CORRUPT } end
if cur and hexCmp(cur, offset) >= 0 then return { R_ALREADY, cur } end
local kept
if expected == '' then
  kept = not cur or hexCmp(hexInc(cur), from) >= 0
else
  kept = cur and hexCmp(cur, expected) >= 0
end
if not kept then return { E_FRONTIER_GAP, cur or '' } end
redis.call('SET', KEYS[1], offset)
return { R_OK, offset }
