-- The fields of queries/functions/checked_fields.sql whose JSON type loading checks on an
-- event of a type: the fields SPEC section 2 lists for that type, and on every known type
-- the ones runtimes write on every line (`session_id`, `timestamp`, `event_id`,
-- `parent_id`, `task_id`). An unknown event type is never fatal (SPEC section 2: the
-- format grows every release): on one, only `event_type` itself is checked. Other keys of
-- an event are not its fields, as `mur trace` ignores them: a `"max_turns":"x"` on a
-- tool call is read as DuckDB's reader converts it, and nothing reads it there.
-- @param event_type VARCHAR  The event's type, as written.
-- @column result VARCHAR[]  Field names, as json_extract takes them (empty for an unknown type).
CASE event_type
    WHEN 'session_start' THEN ['capsule_name', 'capsule_version', 'model', 'max_turns']
    WHEN 'inference'
        THEN ['turn', 'input_tokens', 'output_tokens', 'decision', 'tool_name', 'origin']
    WHEN 'tool_call'
        THEN ['turn', 'tool_name', 'input_bytes', 'output_bytes', 'duration_ms', 'status']
    WHEN 'skill_call' THEN ['turn', 'skill_name', 'output_bytes', 'duration_ms', 'status']
    WHEN 'shell' THEN [
        'turn', 'binary', 'command', 'exit_code', 'stdout_bytes', 'stderr_bytes', 'duration_ms'
    ]
    WHEN 'compaction' THEN ['turn', 'tokens_before', 'tokens_after']
    WHEN 'session_end' THEN [
        'total_turns', 'total_input_tokens', 'total_output_tokens', 'total_tool_calls',
        'total_shell_calls', 'duration_ms', 'exit_status'
    ]
    WHEN 'task_start' THEN ['context_id', 'source']
    WHEN 'task_end' THEN [
        'exit_status', 'duration_ms', 'turns', 'input_tokens', 'output_tokens', 'tool_calls',
        'shell_calls', 'reopen_count'
    ]
    WHEN 'task_reopened' THEN ['hook_name', 'reason', 'reopen_number']
    ELSE []
END || CASE WHEN event_type IN (
    'session_start', 'inference', 'tool_call', 'skill_call', 'shell', 'compaction',
    'session_end', 'task_start', 'task_end', 'task_reopened'
) THEN ['session_id', 'timestamp', 'event_id', 'parent_id', 'task_id'] ELSE [] END
