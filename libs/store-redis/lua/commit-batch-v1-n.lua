--[[
  Group commit (ADR-0039): the commit-path script calls of several commits, made in one event-loop
  turn, run in one EVALSHA, in the order given. Each call runs exactly as its own script would (the
  same body, embedded below as a function of its keys and arguments) and is answered on its own;
  a call that raises an error (or answers redis.error_reply) is answered with an error element and
  the calls after it still run, as separate scripts would. Used on a standalone server only (the
  keys span hash tags); a Cluster client sends the calls one by one.

  Input (numkeys = the sum of the calls' key counts):
    KEYS     the keys of every call, call after call, each call's in its script's order

    ARGV[1]  number of calls, decimal
    then per call:
      script name   registered name of the script (claimCommitV1, claimSeqV1, putRecordV1,
                    markRecordedV1, markOutboxedV1, markPublishedCommittedV1, markCommittedV1)
      key count     decimal: how many of KEYS, from where the previous call's ended, are its keys
      arg count     decimal
      args          that many arguments, as the script's own ARGV

  Output:
    one element per call, in order: the script's own reply, or {'error', message} when the call
    raised an error or named an unknown script
]]
--- @include "result-codes"
--- @include "hex-u64"
--- @include "commit-states"
--- @include "physical-expiry"
--- @include "history-index"
--- @include "recorded-move"

--- @script "claim-commit-v1-3" claimCommit
--- @script "claim-seq-v1-2" claimSeq
--- @script "put-record-v1-4" putRecord
--- @script "mark-recorded-v1-1" markRecorded
--- @script "mark-outboxed-v1-1" markOutboxed
--- @script "mark-published-committed-v1-2" markPublishedCommitted
--- @script "mark-committed-v1-2" markCommitted

local SCRIPTS = {
  claimCommitV1 = claimCommit,
  claimSeqV1 = claimSeq,
  putRecordV1 = putRecord,
  markRecordedV1 = markRecorded,
  markOutboxedV1 = markOutboxed,
  markPublishedCommittedV1 = markPublishedCommitted,
  markCommittedV1 = markCommitted,
}

local out = {}
local k, a = 1, 2
for i = 1, tonumber(ARGV[1]) do
  local fn = SCRIPTS[ARGV[a]]
  local nk, na = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local name = ARGV[a]
  a = a + 3
  local keys, args = {}, {}
  for j = 1, nk do keys[j] = KEYS[k + j - 1] end
  for j = 1, na do args[j] = ARGV[a + j - 1] end
  k, a = k + nk, a + na
  if fn == nil then
    out[i] = { 'error', 'unknown script ' .. name }
  else
    local ok, r = pcall(fn, keys, args)
    if not ok then
      out[i] = { 'error', type(r) == 'table' and r.err or tostring(r) }
    elseif type(r) == 'table' and r.err then
      out[i] = { 'error', r.err }
    else
      out[i] = r
    end
  end
end
return out
