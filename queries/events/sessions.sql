-- One row per trace file (a session): who ran, how it ended, and its totals.
--
-- Identity fields come from the last `session_start`, totals from the last `session_end`,
-- as `mur trace` reads them (an attempt or a task block writes one pair each). A trace cut
-- short has no `session_end`: its totals are NULL and `complete` is false. A file of
-- another format whose lines belong to several sessions (events/file_sessions.sql: an
-- OpenHands output, one instance a line) counts them together: its totals add up the last
-- `session_end` of each session, its exit status is theirs when they all agree (else
-- NULL), and it is complete when one of them ended. A Murmur trace is one session, whatever ids its lines name.
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
-- @column first_ms            BIGINT     The earliest timestamp of its events (Unix ms), NULL when none has one.
-- @column has_session_start   BOOLEAN    The trace has a session_start.
-- @column has_session_end     BOOLEAN    The trace has a session_end.
-- @column complete            BOOLEAN    The trace has both.
-- @column sessions_in_file    BIGINT     Sessions the file holds: those its lines belong to in a file
--                                        of a format that holds several (events/file_sessions.sql),
--                                        else 1, or 0 without a session_start.
WITH per_trace AS (
    SELECT
        trace_path,
        count(*) AS events,
        min(timestamp) AS first_ms,
        arg_max(capsule_name, line) FILTER (WHERE event_type = 'session_start') AS capsule_name,
        arg_max(capsule_version, line) FILTER (WHERE event_type = 'session_start')
            AS capsule_version,
        arg_max(model, line) FILTER (WHERE event_type = 'session_start') AS model,
        arg_max(max_turns, line) FILTER (WHERE event_type = 'session_start') AS max_turns,
        count(*) FILTER (WHERE event_type = 'session_start') > 0 AS has_start,
        max(line) FILTER (WHERE event_type = 'session_end') AS end_line
    FROM events
    GROUP BY trace_path
),
files AS (
    SELECT p.*, coalesce(f.sessions, p.has_start::BIGINT) AS sessions_in_file
    FROM per_trace AS p
    LEFT JOIN file_sessions AS f USING (trace_path)
),
-- the session_end that gives the totals: the file's last, or, in a file of several sessions,
-- the last one of each session (events/session_parts.sql), added up
last_ends AS (
    SELECT p.trace_path, p.end_line AS line, unnest(p.ended)
    FROM session_parts AS p
    WHERE p.ended IS NOT NULL
    UNION ALL BY NAME
    SELECT
        e.trace_path, e.line, e.exit_status, e.duration_ms, e.total_turns, e.total_input_tokens,
        e.total_output_tokens, e.total_tool_calls, e.total_shell_calls
    FROM events AS e
    JOIN files AS p ON p.trace_path = e.trace_path AND p.end_line = e.line
    WHERE e.event_type = 'session_end' AND p.sessions_in_file <= 1
),
ends AS (
    SELECT
        trace_path,
        max(line) AS line,
        CASE WHEN count(DISTINCT exit_status) = 1 AND count(exit_status) = count(*)
            THEN any_value(exit_status) END AS exit_status,
        capped(sum(duration_ms)) AS duration_ms,
        capped(sum(total_turns)) AS total_turns,
        capped(sum(total_input_tokens)) AS total_input_tokens,
        capped(sum(total_output_tokens)) AS total_output_tokens,
        capped(sum(total_tool_calls)) AS total_tool_calls,
        capped(sum(total_shell_calls)) AS total_shell_calls
    FROM last_ends
    GROUP BY trace_path
)
SELECT
    t.session_id,
    t.trace_path,
    created_ms(t.session_id) AS created_ms,
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
    p.first_ms,
    p.has_start AS has_session_start,
    e.line IS NOT NULL AS has_session_end,
    p.has_start AND e.line IS NOT NULL AS complete,
    p.sessions_in_file
FROM traces AS t
JOIN files AS p USING (trace_path)
LEFT JOIN ends AS e ON e.trace_path = p.trace_path
WHERE t.error_code IS NULL
ORDER BY t.ordinal
