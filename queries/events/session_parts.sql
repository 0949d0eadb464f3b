-- Each session of a file of several (events/file_sessions.sql: more than one session, an
-- OpenHands output): who ran it (its last `session_start`) and how it ended (its last
-- `session_end`). `sessions` adds up a file's parts; the per-session metrics give each a row.
-- @column trace_path VARCHAR  The file.
-- @column session_id VARCHAR  The session.
-- @column started    STRUCT   capsule_name, capsule_version, model, max_turns of its last
--                             session_start; NULL when it has none.
-- @column ended      STRUCT   exit_status, duration_ms and the totals of its last session_end;
--                             NULL when it has none.
-- @column end_line   BIGINT   The line of that session_end.
-- @column first_ms   BIGINT   The earliest timestamp of its events.
SELECT
    trace_path,
    session_id,
    arg_max({
        capsule_name: capsule_name, capsule_version: capsule_version, model: model,
        max_turns: max_turns
    }, line) FILTER (WHERE event_type = 'session_start') AS started,
    arg_max({
        exit_status: exit_status, duration_ms: duration_ms, total_turns: total_turns,
        total_input_tokens: total_input_tokens, total_output_tokens: total_output_tokens,
        total_tool_calls: total_tool_calls, total_shell_calls: total_shell_calls
    }, line) FILTER (WHERE event_type = 'session_end') AS ended,
    max(line) FILTER (WHERE event_type = 'session_end') AS end_line,
    min(timestamp) AS first_ms
FROM events
WHERE trace_path IN (SELECT trace_path FROM file_sessions WHERE sessions > 1)
GROUP BY ALL
