-- Every non-blank line of the given trace files, parsed by DuckDB's JSON reader in one pass.
--
-- DuckDB reads the files (read_blob: text that is not UTF-8 becomes a problem of its trace,
-- not an error of the whole load), splits them into lines, and parses each line once into
-- the fields most events carry; the fields only rare events carry (session_start/_end,
-- compaction, tasks, reopens) come from a second parse of those lines alone. Blank lines
-- take no row but keep their number. A line that is not a JSON object with an
-- `event_type` keeps a row with its `problem` (queries/load/traces.sql turns the first one
-- into the trace's error and loading drops the trace). `state_effect` and `resource_id`
-- are kept only when the line holds them as JSON strings: anything else is "not declared"
-- (SPEC sections 1 and 3). Unknown keys are dropped; unknown event types are kept.
-- Reads the files named by the variable `trace_files` (SET VARIABLE). Loading stores the
-- result as `lines`, judges the traces from it (traces.sql), drops the rows of bad traces
-- and fills missing session ids in place, and renames what is left `events`.
-- @column trace_path   VARCHAR  The trace file, as given.
-- @column line         BIGINT   1-based line number counting blank lines (what an editor shows).
-- @column problem      VARCHAR  NULL for a readable event; otherwise what is wrong with the line.
-- @column session_id   VARCHAR  As written (loading fills it from the trace when absent).
-- @column event_type   VARCHAR  As written.
-- @column turn         BIGINT   As written (NULL when absent).
-- @column timestamp    BIGINT   Unix milliseconds, as written.
-- @column input        JSON     A tool call's input, verbatim.
-- @column state_effect VARCHAR  A tool call's declared effect, when a string.
-- @column resource_id  VARCHAR  A tool call's declared resource, when a string.
WITH files AS (
    SELECT filename AS trace_path, try(decode(content)) AS text
    FROM read_blob(getvariable('trace_files'))
),
split AS (
    -- unnest and generate_subscripts in one select list walk the list in lockstep (and
    -- run far faster than a lateral UNNEST ... WITH ORDINALITY)
    SELECT *
    FROM (
        SELECT
            trace_path,
            unnest(string_split(text, chr(10))) AS raw,
            generate_subscripts(string_split(text, chr(10)), 1) AS line
        FROM files
        WHERE text IS NOT NULL
    )
    -- a blank line holds only spaces, tabs and carriage returns (all below '!'); trimming
    -- every line costs more than parsing it, so only lines that start below '!' (strings
    -- compare bytewise) are trimmed
    WHERE CASE WHEN raw >= '!' THEN true ELSE trim(raw, ' ' || chr(9) || chr(13)) <> '' END
),
parsed AS (
    SELECT
        trace_path,
        line,
        raw,
        try(json_transform(raw, '{
            "event_type": "VARCHAR", "session_id": "VARCHAR", "timestamp": "BIGINT",
            "turn": "BIGINT", "event_id": "VARCHAR", "parent_id": "VARCHAR", "task_id": "VARCHAR",
            "input_tokens": "BIGINT", "output_tokens": "BIGINT", "decision": "VARCHAR",
            "tool_name": "VARCHAR", "origin": "VARCHAR",
            "input": "JSON", "input_bytes": "BIGINT", "output_bytes": "BIGINT",
            "duration_ms": "BIGINT", "status": "VARCHAR",
            "state_effect": "JSON", "resource_id": "JSON", "skill_name": "VARCHAR",
            "binary": "VARCHAR", "command": "VARCHAR", "exit_code": "BIGINT",
            "stdout_bytes": "BIGINT", "stderr_bytes": "BIGINT"
        }')) AS ev
    FROM split
),
detailed AS (
    SELECT
        *,
        CASE WHEN ev.event_type IN (
            'session_start', 'session_end', 'compaction', 'task_start', 'task_end',
            'task_reopened'
        ) THEN json_transform(raw, '{
            "capsule_name": "VARCHAR", "capsule_version": "VARCHAR", "model": "VARCHAR",
            "max_turns": "BIGINT", "tools_declared": "JSON", "capabilities": "JSON",
            "tokens_before": "BIGINT", "tokens_after": "BIGINT",
            "total_turns": "BIGINT", "total_input_tokens": "BIGINT",
            "total_output_tokens": "BIGINT", "total_tool_calls": "BIGINT",
            "total_shell_calls": "BIGINT", "exit_status": "VARCHAR",
            "context_id": "VARCHAR", "source": "VARCHAR", "turns": "BIGINT",
            "tool_calls": "BIGINT", "shell_calls": "BIGINT", "reopen_count": "BIGINT",
            "hook_name": "VARCHAR", "reason": "VARCHAR", "reopen_number": "BIGINT"
        }') END AS rare
    FROM parsed
)
SELECT
    trace_path,
    line,
    CASE
        WHEN ev IS NULL THEN 'not valid JSON'
        WHEN ev.event_type IS NULL THEN 'not an event object (no "event_type")'
    END AS problem,
    ev.session_id,
    ev.event_type,
    ev.turn,
    ev.timestamp,
    ev.event_id,
    ev.parent_id,
    ev.task_id,
    rare.capsule_name,
    rare.capsule_version,
    rare.model,
    rare.max_turns,
    rare.tools_declared,
    rare.capabilities,
    ev.input_tokens,
    ev.output_tokens,
    ev.decision,
    ev.tool_name,
    ev.origin,
    ev.input,
    ev.input_bytes,
    ev.output_bytes,
    ev.duration_ms,
    ev.status,
    CASE WHEN json_type(ev.state_effect) = 'VARCHAR' THEN ev.state_effect ->> '$' END
        AS state_effect,
    CASE WHEN json_type(ev.resource_id) = 'VARCHAR' THEN ev.resource_id ->> '$' END
        AS resource_id,
    ev.skill_name,
    ev."binary",
    ev.command,
    ev.exit_code,
    ev.stdout_bytes,
    ev.stderr_bytes,
    rare.tokens_before,
    rare.tokens_after,
    rare.total_turns,
    rare.total_input_tokens,
    rare.total_output_tokens,
    rare.total_tool_calls,
    rare.total_shell_calls,
    rare.exit_status,
    rare.context_id,
    rare.source,
    rare.turns,
    rare.tool_calls,
    rare.shell_calls,
    rare.reopen_count,
    rare.hook_name,
    rare.reason,
    rare.reopen_number
FROM detailed
UNION ALL BY NAME
SELECT trace_path, 0 AS line, 'not valid UTF-8 text' AS problem
FROM files
WHERE text IS NULL
