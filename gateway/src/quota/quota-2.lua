-- quota-2.lua: count one API request against its key's monthly quota and its organization's daily limit,
-- in one atomic step, so no race exists between checking and counting across any number of gateways.
--
-- KEYS[1]  the key's monthly counter       e.g. voice:q:{org_x}:m:key_y:202611
-- KEYS[2]  the organization's daily counter e.g. voice:q:{org_x}:d:20261125
--          (both carry the organization as hash tag, so they share a Redis Cluster slot)
-- ARGV[1]  monthly quota of the key
-- ARGV[2]  daily request limit of the plan, or -1 for unlimited
-- ARGV[3]  seconds the monthly counter is kept (past the end of its month)
-- ARGV[4]  seconds the daily counter is kept (past the end of its day)
--
-- Returns {verdict, monthly_used, daily_used}:
--   verdict 0  allowed; both counters were incremented and the new values returned
--   verdict 1  monthly quota used up; nothing counted
--   verdict 2  daily limit reached; nothing counted

local monthly = tonumber(redis.call('GET', KEYS[1]) or '0')
local daily = tonumber(redis.call('GET', KEYS[2]) or '0')

if monthly >= tonumber(ARGV[1]) then
  return {1, monthly, daily}
end

local daily_limit = tonumber(ARGV[2])
if daily_limit >= 0 and daily >= daily_limit then
  return {2, monthly, daily}
end

monthly = redis.call('INCR', KEYS[1])
if monthly == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
daily = redis.call('INCR', KEYS[2])
if daily == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return {0, monthly, daily}
