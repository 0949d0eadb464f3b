-- created_ms(session_id): when a Murmur session was created, from its UUID v7 id
-- (`ses_` + 32 hex digits, the first 12 the Unix milliseconds), as `mur trace` reads it;
-- NULL for any other id (another agent's ids say no time).
-- @param session_id VARCHAR  A session id.
-- @column result    BIGINT   Unix milliseconds, or NULL.
CASE WHEN regexp_full_match(session_id, 'ses_[0-9a-f]{32}')
    THEN ('0x' || substr(session_id, 5, 12))::BIGINT
END
