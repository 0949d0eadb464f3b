-- The redundancy rate of each session over time: redundant calls (active policy) per
-- tool call, with when the session began (`started_ms` of the per-session metrics: from
-- its UUID v7 id, else its first event's timestamp, as `export` dates a session).
-- @column session_id      VARCHAR    Session.
-- @column created         TIMESTAMP  When it began; NULL when its trace says no time.
-- @column tool_calls      BIGINT     Tool calls in the trace.
-- @column redundant_calls BIGINT     Findings.
-- @column rate            DOUBLE     redundant_calls / tool_calls (NULL without calls).
SELECT
    session_id,
    make_timestamp(started_ms * 1000) AS created,
    tool_ok + tool_error AS tool_calls,
    redundant_calls,
    redundant_calls / nullif(tool_ok + tool_error, 0) AS rate
FROM session_metrics
ORDER BY created NULLS LAST, session_id
