-- The events of every trace that can be analysed: one row per event line, fields flat.
--
-- This is the table everything else builds on. Fields an event type does not carry are
-- NULL. `session_id` falls back to the trace's session id (queries/load/traces.sql) when
-- the line names none. `state_effect` and `resource_id` are kept only when the line holds
-- them as JSON strings: anything else is "not declared" (SPEC sections 1 and 3).
-- @column trace_path   VARCHAR  The trace file.
-- @column line         BIGINT   1-based line number counting blank lines.
-- @column session_id   VARCHAR  The line's session id, else its trace's.
-- @column event_type   VARCHAR  As written; unknown types are kept.
-- @column turn         BIGINT   As written (NULL when absent).
-- @column timestamp    BIGINT   Unix milliseconds, as written.
-- @column input        JSON     A tool call's input, verbatim.
-- @column state_effect VARCHAR  A tool call's declared effect, when a string.
-- @column resource_id  VARCHAR  A tool call's declared resource, when a string.
SELECT
    l.trace_path,
    l.line,
    coalesce(l.ev.session_id, t.session_id) AS session_id,
    l.ev.event_type,
    l.ev.turn,
    l.ev.timestamp,
    l.ev.event_id,
    l.ev.parent_id,
    l.ev.task_id,
    l.ev.capsule_name,
    l.ev.capsule_version,
    l.ev.model,
    l.ev.max_turns,
    l.ev.tools_declared,
    l.ev.capabilities,
    l.ev.input_tokens,
    l.ev.output_tokens,
    l.ev.decision,
    l.ev.tool_name,
    l.ev.origin,
    l.ev.input,
    l.ev.input_bytes,
    l.ev.output_bytes,
    l.ev.duration_ms,
    l.ev.status,
    CASE WHEN json_type(l.ev.state_effect) = 'VARCHAR' THEN l.ev.state_effect ->> '$' END
        AS state_effect,
    CASE WHEN json_type(l.ev.resource_id) = 'VARCHAR' THEN l.ev.resource_id ->> '$' END
        AS resource_id,
    l.ev.skill_name,
    l.ev."binary",
    l.ev.command,
    l.ev.exit_code,
    l.ev.stdout_bytes,
    l.ev.stderr_bytes,
    l.ev.tokens_before,
    l.ev.tokens_after,
    l.ev.total_turns,
    l.ev.total_input_tokens,
    l.ev.total_output_tokens,
    l.ev.total_tool_calls,
    l.ev.total_shell_calls,
    l.ev.exit_status,
    l.ev.context_id,
    l.ev.source,
    l.ev.turns,
    l.ev.tool_calls,
    l.ev.shell_calls,
    l.ev.reopen_count,
    l.ev.hook_name,
    l.ev.reason,
    l.ev.reopen_number
FROM _trace_lines AS l
JOIN traces AS t USING (trace_path)
WHERE t.error_code IS NULL
ORDER BY l.trace_path, l.line
