-- The fields of queries/functions/checked_fields.sql whose JSON type loading checks on an
-- event of a type: the fields SPEC section 2 lists for that type, and on every line the
-- ones runtimes write on every line (`session_id`, `timestamp`, `event_id`, `parent_id`,
-- `task_id`), which loading reads from every line (a trace's session id, its first time,
-- the ids `export` keeps). An unknown event type is never fatal for its own fields (SPEC
-- section 2: the format grows every release), nor a key of a known type that is not one
-- of its fields, as `mur trace` ignores them: a heartbeat's `"status": 429`, a
-- `"max_turns": "x"` on a tool call are read as DuckDB's reader converts them, and
-- nothing reads them there.
-- @param event_type VARCHAR  The event's type, as written.
-- @column result VARCHAR[]  Field names, as json_extract takes them.
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
END || ['session_id', 'timestamp', 'event_id', 'parent_id', 'task_id']
