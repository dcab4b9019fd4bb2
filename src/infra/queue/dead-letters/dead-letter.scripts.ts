/**
 * Lua scripts of the dead-letter store: each runs atomically in Redis, so parking, trimming, paging and claiming a
 * replay never see another half done. Layout per project (one hash tag, so one Cluster slot):
 *   ids        sorted set: entry id -> score (parked-at ms followed by a 3-digit sequence: unique, ordered)
 *   summaries  hash: entry id -> summary JSON (small: what the list shows)
 *   sizes      hash: entry id -> bytes it holds
 *   counters   hash: bytes, dropped (over a cap), expired (past retention), seq
 *   payload:ID the batch to replay; parked:ID "parked once" (idempotence); claim:ID a replay in progress;
 *   replayed:ID the job a finished replay became; job-events:JOB set of the ids of JOB's events parked so far.
 * Entry keys expire with the retention time; the four index keys live twice as long after the project's last park,
 * so a trim can still count what retention removed, and then go too: an idle project leaves nothing behind.
 * Payload keys of other entries are derived from the base inside the scripts, not declared: every key is in the
 * project's slot, which is what Redis Cluster needs in practice.
 * Numbers that do not fit Lua's 14 printed digits (scores) travel as strings and are only concatenated here.
 */

// KEYS[1] ids, KEYS[2] summaries, KEYS[3] sizes, KEYS[4] counters; the last ARGV is the key base
const ENTRY_FUNCTIONS = `
local ids, summaries, sizes, counters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local base = ARGV[#ARGV]

local function removeEntry(id)
  local size = tonumber(redis.call('HGET', sizes, id) or '0')
  redis.call('ZREM', ids, id)
  redis.call('HDEL', summaries, id)
  redis.call('HDEL', sizes, id)
  redis.call('DEL', base .. 'payload:' .. id)
  redis.call('HINCRBY', counters, 'bytes', -size)
end

local function trimExpired(cutoffScore)
  local expired = redis.call('ZRANGEBYSCORE', ids, '-inf', '(' .. cutoffScore)
  for _, id in ipairs(expired) do removeEntry(id) end
  if #expired > 0 then redis.call('HINCRBY', counters, 'expired', #expired) end
end
`;

/**
 * ARGV: id, summary, payload, parked-at ms, retention ms, cutoff score, max entries, max bytes, index ttl ms, the job the
 * events came in, their ids (JSON array), base.
 * Returns {'parked'}; {'parked-before'} when this id was parked before (even if replayed or dropped since); or
 * {'events-parked', event id...} when some of these events of the job are in an entry already (under another id: the
 * job's refused events parked by its run, and the job failed by BullMQ while or after it ran), storing nothing.
 */
export const PARK_SCRIPT = `${ENTRY_FUNCTIONS}
local id, summary, payload, parkedAtMs, retentionMs = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local maxEntries, maxBytes = tonumber(ARGV[7]), tonumber(ARGV[8])
local jobEvents, eventIds = base .. 'job-events:' .. ARGV[10], cjson.decode(ARGV[11])
if redis.call('EXISTS', base .. 'parked:' .. id) == 1 then return {'parked-before'} end
local parkedBefore = {'events-parked'}
for _, eventId in ipairs(eventIds) do
  if redis.call('SISMEMBER', jobEvents, eventId) == 1 then parkedBefore[#parkedBefore + 1] = eventId end
end
if #parkedBefore > 1 then return parkedBefore end
redis.call('SET', base .. 'parked:' .. id, '1', 'PX', retentionMs)
for _, eventId in ipairs(eventIds) do redis.call('SADD', jobEvents, eventId) end
redis.call('PEXPIRE', jobEvents, retentionMs)
local seq = redis.call('HINCRBY', counters, 'seq', 1) % 1000
local size = string.len(payload) + string.len(summary)
redis.call('SET', base .. 'payload:' .. id, payload, 'PX', retentionMs)
redis.call('ZADD', ids, parkedAtMs .. string.format('%03d', seq), id)
redis.call('HSET', summaries, id, summary)
redis.call('HSET', sizes, id, size)
redis.call('HINCRBY', counters, 'bytes', size)
trimExpired(ARGV[6])
-- the newest entry always stays, so one entry over the byte cap is kept alone rather than lost
local dropped = 0
while redis.call('ZCARD', ids) > 1 and (redis.call('ZCARD', ids) > maxEntries or tonumber(redis.call('HGET', counters, 'bytes')) > maxBytes) do
  removeEntry(redis.call('ZRANGE', ids, 0, 0)[1])
  dropped = dropped + 1
end
if dropped > 0 then redis.call('HINCRBY', counters, 'dropped', dropped) end
for _, key in ipairs({ids, summaries, sizes, counters}) do redis.call('PEXPIRE', key, ARGV[9]) end
return {'parked'}
`;

/**
 * ARGV: cutoff score, limit, before score ('+inf' for the first page), base.
 * Returns {total, dropped, expired, {id, score, summary, ...}} with up to limit + 1 entries, newest first.
 */
export const PAGE_SCRIPT = `${ENTRY_FUNCTIONS}
trimExpired(ARGV[1])
local max = ARGV[3] == '+inf' and '+inf' or '(' .. ARGV[3]
local page = redis.call('ZREVRANGEBYSCORE', ids, max, '-inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]) + 1)
local entries = {}
for i = 1, #page, 2 do
  entries[#entries + 1] = page[i]
  entries[#entries + 1] = page[i + 1]
  entries[#entries + 1] = redis.call('HGET', summaries, page[i]) or ''
end
local counts = redis.call('HMGET', counters, 'dropped', 'expired')
return {redis.call('ZCARD', ids), counts[1] or '0', counts[2] or '0', entries}
`;

/**
 * KEYS[1] ids; ARGV: id, token, claim ms, base. Returns {'ok', payload} to the one caller that may replay the entry,
 * {'claimed'} while another replay of it runs, {'replayed', job id} after one finished, {'missing'} otherwise.
 */
export const CLAIM_SCRIPT = `
local id, token, claimMs, base = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not redis.call('ZSCORE', KEYS[1], id) then
  local replayedAs = redis.call('GET', base .. 'replayed:' .. id)
  if replayedAs then return {'replayed', replayedAs} end
  return {'missing'}
end
if not redis.call('SET', base .. 'claim:' .. id, token, 'NX', 'PX', claimMs) then return {'claimed'} end
local payload = redis.call('GET', base .. 'payload:' .. id)
if not payload then
  redis.call('DEL', base .. 'claim:' .. id)
  return {'missing'}
end
return {'ok', payload}
`;

/** ARGV: id, token, replayed-as job id, retention ms, base. Removes the entry if the claim is still the caller's. */
export const FINISH_REPLAY_SCRIPT = `${ENTRY_FUNCTIONS}
local id, token, replayedAs, retentionMs = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('GET', base .. 'claim:' .. id) ~= token then return 0 end
removeEntry(id)
redis.call('DEL', base .. 'claim:' .. id)
redis.call('SET', base .. 'replayed:' .. id, replayedAs, 'PX', retentionMs)
return 1
`;

/**
 * KEYS[1] the claim; ARGV: token. Gives a claim back when its replay could not be queued. The key is declared: a script
 * without keys goes to any node of a Cluster, which may not hold the project's slot.
 */
export const RELEASE_CLAIM_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;
