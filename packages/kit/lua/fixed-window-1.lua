-- fixed-window-1.lua: one fixed-window rate-limit decision, check then count, atomically.
--
-- KEYS[1]  the window's counter, e.g. <prefix>ratelimit:<name>:{203.0.113.7}:<window start>; one key, so Cluster-safe
-- ARGV[1]  limit: requests allowed per window
-- ARGV[2]  window length in milliseconds (the counter expires with its window)
--
-- Returns {allowed, count, reset_ms}:
--   allowed   1 if the request is allowed and counted, 0 if refused
--   count     the window's count after this request (unchanged when refused)
--   reset_ms  milliseconds until the window resets
--
-- A refused request is not counted, so a client that keeps knocking is not locked out past the window.

local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= limit then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then ttl = window_ms end
  return { 0, count, ttl }
end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], window_ms) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = window_ms end
return { 1, count, ttl }
