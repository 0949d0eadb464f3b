-- created_ms(session_id): when a Murmur session was created, from its UUID v7 id (`ses_`
-- + 32 hex digits, the first 12 the Unix milliseconds), as `mur trace` reads it (and
-- `sessions.created_ms` for --since and --last): the 12 bytes after `ses_`, hexadecimal
-- digits and a `+` before them at most, whatever follows; NULL for any other id (another
-- agent's ids say no time).
-- @param session_id VARCHAR  A session id.
-- @column result    BIGINT   Unix milliseconds, or NULL.
CASE WHEN regexp_matches(session_id, '^ses_(?:\+[0-9a-fA-F]{11}|[0-9a-fA-F]{12})')
    THEN ('0x' || ltrim(substr(session_id, 5, 12), '+'))::BIGINT
END
