-- INCRBY every counter by its increment (1, or a lease); a counter's first hit of a window sets
-- its expiry. Returns the new totals, in order.
-- The counters are kept out of the AOF and replicas (REPL_NONE): with `appendfsync always`
-- every logged write costs an fsync, and a count is not worth one; a restarted Redis simply
-- starts every window afresh.
-- KEYS: counters...
-- ARGV: ttl_s increments...
redis.replicate_commands()
redis.set_repl(redis.REPL_NONE)
local counts = {}
for i, key in ipairs(KEYS) do
  local by = tonumber(ARGV[i + 1])
  local count = redis.call('INCRBY', key, by)
  if count == by then
    redis.call('EXPIRE', key, ARGV[1])
  end
  counts[i] = count
end
return counts
