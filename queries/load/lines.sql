-- Every non-blank line of the given trace files, parsed once by DuckDB's JSON reader.
--
-- DuckDB reads the files (read_blob, so text that is not UTF-8 becomes a problem of its
-- trace instead of an error of the whole load), splits them into lines and parses each
-- line into a typed struct in one pass. Blank lines take no row but keep their number.
-- A line that is not a JSON object with an `event_type` keeps a row with its `problem`.
-- A file that is not UTF-8 gets one row with line 0.
-- @param paths       VARCHAR[]  Trace files to read.
-- @column trace_path VARCHAR    The trace file, as given.
-- @column line       BIGINT     1-based line number counting blank lines (what an editor shows).
-- @column problem    VARCHAR    NULL for a readable event; otherwise what is wrong with the line.
-- @column ev         STRUCT     The fields of SPEC section 2; unknown keys are dropped.
WITH files AS (
    SELECT filename AS trace_path, try(decode(content)) AS text
    FROM read_blob($paths)
),
split AS (
    SELECT f.trace_path, l.raw, l.line
    FROM files AS f,
        unnest(string_split(f.text, chr(10))) WITH ORDINALITY AS l(raw, line)
    WHERE f.text IS NOT NULL AND trim(l.raw, ' ' || chr(9) || chr(13)) <> ''
),
parsed AS (
    SELECT
        trace_path,
        line,
        try(json_transform(raw, '{
            "event_type": "VARCHAR", "session_id": "VARCHAR", "timestamp": "BIGINT",
            "turn": "BIGINT", "event_id": "VARCHAR", "parent_id": "VARCHAR", "task_id": "VARCHAR",
            "capsule_name": "VARCHAR", "capsule_version": "VARCHAR", "model": "VARCHAR",
            "max_turns": "BIGINT", "tools_declared": "JSON", "capabilities": "JSON",
            "input_tokens": "BIGINT", "output_tokens": "BIGINT", "decision": "VARCHAR",
            "tool_name": "VARCHAR", "origin": "VARCHAR",
            "input": "JSON", "input_bytes": "BIGINT", "output_bytes": "BIGINT",
            "duration_ms": "BIGINT", "status": "VARCHAR",
            "state_effect": "JSON", "resource_id": "JSON",
            "skill_name": "VARCHAR",
            "binary": "VARCHAR", "command": "VARCHAR", "exit_code": "BIGINT",
            "stdout_bytes": "BIGINT", "stderr_bytes": "BIGINT",
            "tokens_before": "BIGINT", "tokens_after": "BIGINT",
            "total_turns": "BIGINT", "total_input_tokens": "BIGINT",
            "total_output_tokens": "BIGINT", "total_tool_calls": "BIGINT",
            "total_shell_calls": "BIGINT", "exit_status": "VARCHAR",
            "context_id": "VARCHAR", "source": "VARCHAR", "turns": "BIGINT",
            "tool_calls": "BIGINT", "shell_calls": "BIGINT", "reopen_count": "BIGINT",
            "hook_name": "VARCHAR", "reason": "VARCHAR", "reopen_number": "BIGINT"
        }')) AS ev
    FROM split
)
SELECT
    trace_path,
    line,
    CASE
        WHEN ev IS NULL THEN 'not valid JSON'
        WHEN ev.event_type IS NULL THEN 'not an event object (no "event_type")'
    END AS problem,
    ev
FROM parsed
UNION ALL
SELECT trace_path, 0 AS line, 'not valid UTF-8 text' AS problem, NULL AS ev
FROM files
WHERE text IS NULL
