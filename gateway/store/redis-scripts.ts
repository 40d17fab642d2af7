// The Lua scripts of the Redis store. Each touches only keys of one Cluster slot: the keys of one
// credential (its {id} hash tag), one meta key, or the failure counters (all under {fail}).

// KEYS: account record, nonce. ARGV: nonce ttl, the record's expected version (the SHA-1 of its
// JSON; empty: any). Runs only once the signature has verified; the nonce is consumed only while
// the account still exists and, when a version is given, is still that record. Returns 1 fresh,
// 0 already used, -1 account gone, -2 record changed (nothing consumed).
const CONSUME = `
local function consume()
  local record = redis.call('GET', KEYS[1])
  if record == false then return -1 end
  if ARGV[2] ~= '' and redis.sha1hex(record) ~= ARGV[2] then return -2 end
  if redis.call('SET', KEYS[2], '1', 'NX', 'EX', tonumber(ARGV[1])) then return 1 end
  return 0
end`;

export const CONSUME_NONCE = `${CONSUME}
return consume()`;

// As CONSUME_NONCE, and the master that ran it: {result, master_replid, master_replid2}
// (failover-fence.ts). INFO replication costs the server a few microseconds.
export const CONSUME_NONCE_NAMING_MASTER = `${CONSUME}
local result = consume()
local info = redis.call('INFO', 'replication')
return {result, string.match(info, 'master_replid:(%x+)') or '', string.match(info, 'master_replid2:(%x+)') or ''}`;

// KEYS: client record, its last-use key. ARGV: when (epoch ms: compared as a number, since Lua
// compares text by Redis's locale). Kept only for an existing client, and only when later.
export const RECORD_CLIENT_USE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local previous = tonumber(redis.call('GET', KEYS[2]) or '')
if previous and previous >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return 1`;

// KEYS: account record, its usage. ARGV: when (ISO 8601), from where, the fingerprint of the key
// that verified. Skips deleted accounts. The usage keeps each held key's last use (keys), dropping
// the entries of keys the account no longer holds.
export const RECORD_USE = `
local record = redis.call('GET', KEYS[1])
if not record then return 0 end
local keys = {}
local previous = redis.call('GET', KEYS[2])
if previous then
  local ok, used = pcall(cjson.decode, previous)
  if ok and type(used) == 'table' and type(used.keys) == 'table' then keys = used.keys end
end
keys[ARGV[3]] = ARGV[1]
local held = {}
for _, key in ipairs(cjson.decode(record).publicKeys or {}) do held[key.fingerprint] = keys[key.fingerprint] end
redis.call('SET', KEYS[2], cjson.encode({ at = ARGV[1], ip = ARGV[2], keys = held }))
return 1`;

// KEYS: meta:{name}. ARGV: '1' when the value is expected absent else '0', expected value, new value,
// change channel. Absence is its own flag: an empty string is a value, not "absent". The change is
// announced in the same script, so no write goes unannounced (on a Cluster, PUBLISH reaches every node).
export const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (ARGV[1] == '1' and current == false) or (ARGV[1] == '0' and current == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('PUBLISH', ARGV[4], '1')
  return 1
end
return 0`;

// KEYS: failure counters. ARGV: window seconds, then each key's max. Checks every key and counts
// the attempt in the same step, so concurrent attempts cannot all pass one check. Returns
// {1, 0} when allowed, {0, ms until the last blocking window ends} when refused.
export const RESERVE_ATTEMPT = `
local blocked, wait = false, 0
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then
    blocked = true
    wait = math.max(wait, redis.call('PTTL', key))
  end
end
if blocked then return {0, wait} end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[1], 'NX')
end
return {1, 0}`;

// KEYS: failure counters. Takes one back from each; a counter back at zero is deleted rather than
// decremented, so a counter whose window already lapsed is never recreated without an expiry.
export const RELEASE_ATTEMPT = `
for _, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  if count > 1 then redis.call('DECR', key) elseif count == 1 then redis.call('DEL', key) end
end
return 0`;

// KEYS: one record. ARGV: the value it is expected to hold, the new value. Sets the new value only
// while the record still holds exactly the expected one (an optimistic compare-and-set: the change is
// computed outside, and retried when another writer came first). Returns 1 set, 0 changed
// meanwhile, -1 gone. Used for a service account's key list and a client's secret roll, so no Lua
// JSON re-encoding is needed (cjson would turn an empty list into an object).
export const REPLACE_IF_UNCHANGED = `
local current = redis.call('GET', KEYS[1])
if current == false then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;

/** Optimistic attempts of a read-modify-write with REPLACE_IF_UNCHANGED before giving up (only concurrent writers retry). */
export const MAX_REPLACE_ATTEMPTS = 20;
