--[[
  Result codes shared by every script. The first element of every reply is one of these.
  Non-negative = success; negative = a refusal the TypeScript wrapper maps to the same domain
  error Memory raises (table in src/redis/script-codes.ts; a spec checks both lists agree).
]]
local R_OK = 0
local R_ALREADY = 1
local E_NOT_FOUND = -1
local E_CONFLICT = -2
local E_INVALID_STATE = -3
local E_CAS_LOST = -6
local E_CORRUPT = -7
local E_CURSOR_EXPIRED = -8
local E_NEEDS_INSPECT = -9
local E_INVALID_INPUT = -10
local E_FRONTIER_GAP = -13
local E_OVER_LIMIT = -14
