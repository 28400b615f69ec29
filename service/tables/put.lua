-- Write a table's whole record and its TTL at once (a record never lives without its expiry).
-- KEYS: table
-- ARGV: ttl_ms field_values...
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
