-- One row per trace file (a session): who ran, how it ended, and its totals.
--
-- Identity fields come from the last `session_start`, totals from the last `session_end`,
-- as `mur trace` reads them (an attempt or a task block writes one pair each). A trace cut
-- short has no `session_end`: its totals are NULL and `complete` is false.
-- @column session_id          VARCHAR    Session id of the trace.
-- @column trace_path          VARCHAR    The trace file.
-- @column created_ms          BIGINT     Creation time from the UUID v7 session id (Unix ms), NULL if not one.
-- @column capsule_name        VARCHAR    From session_start.
-- @column capsule_version     VARCHAR    From session_start.
-- @column model               VARCHAR    From session_start.
-- @column max_turns           BIGINT     From session_start.
-- @column exit_status         VARCHAR    From session_end (`ok`, `failed`, `max_turns_reached`).
-- @column duration_ms         BIGINT     From session_end.
-- @column total_turns         BIGINT     From session_end.
-- @column total_input_tokens  BIGINT     From session_end.
-- @column total_output_tokens BIGINT     From session_end.
-- @column total_tool_calls    BIGINT     From session_end.
-- @column total_shell_calls   BIGINT     From session_end.
-- @column events              BIGINT     Event lines in the trace.
-- @column has_session_start   BOOLEAN    The trace has a session_start.
-- @column has_session_end     BOOLEAN    The trace has a session_end.
-- @column complete            BOOLEAN    The trace has both.
WITH per_trace AS (
    SELECT
        trace_path,
        count(*) AS events,
        arg_max(capsule_name, line) FILTER (WHERE event_type = 'session_start') AS capsule_name,
        arg_max(capsule_version, line) FILTER (WHERE event_type = 'session_start')
            AS capsule_version,
        arg_max(model, line) FILTER (WHERE event_type = 'session_start') AS model,
        arg_max(max_turns, line) FILTER (WHERE event_type = 'session_start') AS max_turns,
        count(*) FILTER (WHERE event_type = 'session_start') > 0 AS has_start,
        max(line) FILTER (WHERE event_type = 'session_end') AS end_line
    FROM events
    GROUP BY trace_path
)
SELECT
    t.session_id,
    t.trace_path,
    CASE WHEN regexp_full_match(t.session_id, 'ses_[0-9a-f]{32}')
        THEN ('0x' || substr(t.session_id, 5, 12))::BIGINT
    END AS created_ms,
    p.capsule_name,
    p.capsule_version,
    p.model,
    p.max_turns,
    e.exit_status,
    e.duration_ms,
    e.total_turns,
    e.total_input_tokens,
    e.total_output_tokens,
    e.total_tool_calls,
    e.total_shell_calls,
    p.events,
    p.has_start AS has_session_start,
    e.line IS NOT NULL AS has_session_end,
    p.has_start AND e.line IS NOT NULL AS complete
FROM traces AS t
JOIN per_trace AS p USING (trace_path)
LEFT JOIN events AS e
    ON e.trace_path = p.trace_path AND e.line = p.end_line AND e.event_type = 'session_end'
WHERE t.error_code IS NULL
ORDER BY t.ordinal
