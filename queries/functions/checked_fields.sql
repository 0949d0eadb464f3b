-- The event fields whose JSON type loading checks, in the order it checks them: the first
-- 20 are strings; of the others, integers, `exit_code` may be negative, the rest may not
-- (queries/load/lines.sql names the first one of the wrong type).
-- @column result VARCHAR[]  Field names, as json_extract takes them.
[
    'event_type', 'session_id', 'event_id', 'parent_id', 'task_id', 'decision', 'tool_name',
    'origin', 'status', 'skill_name', 'binary', 'command', 'capsule_name', 'capsule_version',
    'model', 'exit_status', 'context_id', 'source', 'hook_name', 'reason',
    'timestamp', 'turn', 'input_tokens', 'output_tokens', 'input_bytes', 'output_bytes',
    'duration_ms', 'exit_code', 'stdout_bytes', 'stderr_bytes', 'max_turns', 'tokens_before',
    'tokens_after', 'total_turns', 'total_input_tokens', 'total_output_tokens',
    'total_tool_calls', 'total_shell_calls', 'turns', 'tool_calls', 'shell_calls',
    'reopen_count', 'reopen_number'
]
