-- quota-2.lua: count one API request against its key's monthly quota and its organization's daily limit,
-- in one atomic step, so no race exists between checking and counting across any number of gateways.
--
-- KEYS[1]  the key lineage's monthly counter e.g. voice:q:{org_x}:m:key_y:202611
-- KEYS[2]  the organization's daily counter  e.g. voice:q:{org_x}:d:20261125
-- KEYS[3]  the key's end marker              e.g. voice:q:{org_x}:end:key_z
--          (all carry the organization as hash tag, so they share a Redis Cluster slot)
-- ARGV[1]  monthly quota of the key
-- ARGV[2]  daily request limit of the plan, or -1 for unlimited
-- ARGV[3]  now, in milliseconds since the epoch
--
-- Returns {verdict, monthly_used, daily_used}:
--   verdict 0  allowed; both counters were incremented and the new values returned
--   verdict 1  monthly quota used up; nothing counted
--   verdict 2  daily limit reached; nothing counted
--   verdict 3  the key was revoked, or its rotation grace is over (the end marker, in milliseconds since
--              the epoch, is not after now); nothing counted
--   verdict 4  a counter does not exist (a new period, or Redis lost it); nothing counted. The two values
--              are 1 where that counter is missing: the caller seeds it from Postgres and calls again
--
-- Counters are created by the caller (SET NX with their expiry), seeded from the durable record of the
-- period's requests, never here: a counter Redis lost must not start again from zero.

local ends_at = redis.call('GET', KEYS[3])
if ends_at and tonumber(ends_at) <= tonumber(ARGV[3]) then
  return {3, 0, 0}
end

local monthly = redis.call('GET', KEYS[1])
local daily = redis.call('GET', KEYS[2])
if not monthly or not daily then
  return {4, monthly and 0 or 1, daily and 0 or 1}
end
monthly = tonumber(monthly)
daily = tonumber(daily)

if monthly >= tonumber(ARGV[1]) then
  return {1, monthly, daily}
end

local daily_limit = tonumber(ARGV[2])
if daily_limit >= 0 and daily >= daily_limit then
  return {2, monthly, daily}
end

monthly = redis.call('INCR', KEYS[1])
daily = redis.call('INCR', KEYS[2])
return {0, monthly, daily}
