-- Move a table from one status to another: 1, or 0 when it was not in the first.
-- KEYS: table
-- ARGV: from_status to_status ttl_ms
-- ttl_ms '' keeps the record's expiry.
if redis.call('HGET', KEYS[1], 'status') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
