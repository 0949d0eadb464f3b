-- Every non-blank line of the given trace files, parsed by DuckDB's JSON reader in one pass.
--
-- DuckDB reads the files (read_blob: text that is not UTF-8 becomes a problem of its trace,
-- not an error of the whole load), splits them into lines, and parses each line once into
-- the fields most events carry; the fields only rare events carry (session_start/_end,
-- compaction, tasks, reopens) come from a second parse of those lines alone. Blank lines
-- take no row but keep their number. A line that is not a JSON object with an
-- `event_type` keeps a row with its `problem` (queries/load/traces.sql turns the first one
-- into the trace's error and loading drops the trace); so does a field of the wrong JSON
-- type: integers must be JSON integers (non-negative but for `exit_code`), text fields
-- strings (queries/functions/wrong_json_type.sql), for the fields of the event's type
-- (queries/functions/event_fields.sql: an unknown type is never fatal for its own). A
-- last line that is not JSON and has no newline after it is a torn write (a session
-- killed mid-write): loading warns and keeps the lines before it. `state_effect` and
-- `resource_id` are kept only when the line holds them as JSON strings: anything else is
-- "not declared" (SPEC sections 1 and 3).
-- Unknown keys are dropped; unknown event types are kept.
-- Reads the files named by the variable `readable_files` (SET VARIABLE). Loading stores the
-- result as `lines`, judges the traces from it (traces.sql), drops the rows of bad traces
-- and fills missing session ids in place, and renames what is left `events`.
-- @column trace_path   VARCHAR  The trace file, as given.
-- @column line         BIGINT   1-based line number counting blank lines (what an editor shows).
-- @column problem      VARCHAR  NULL for a readable event; otherwise what is wrong with the line.
-- @column torn         BOOLEAN  Not JSON, and the last piece of a file with no newline at its end:
--                               a torn write when it is the first bad line (traces.sql).
-- @column session_id   VARCHAR  As written (loading fills it from the trace when absent).
-- @column event_type   VARCHAR  As written.
-- @column turn         BIGINT   As written (NULL when absent).
-- @column timestamp    BIGINT   Unix milliseconds, as written.
-- @column input        JSON     A tool call's input, verbatim.
-- @column state_effect VARCHAR  A tool call's declared effect, when a string.
-- @column resource_id  VARCHAR  A tool call's declared resource, when a string.
-- @column cwd          VARCHAR  Working directory of a command (NULL here: other formats' readers set it).
-- @column result_whole BOOLEAN  The call returned its whole resource (NULL here: the query rules decide).
-- @column changed_paths VARCHAR[] Files a call changed besides its resource (NULL here; a Codex patch).
-- @column first_line   BIGINT   First line of its file a read returned (NULL here: unknown).
-- @column last_line    BIGINT   Last line it returned (NULL: to the end, or unknown).
-- @column file_session VARCHAR  The session of a file of several sessions the line belongs to (NULL
--                               here: a Murmur trace is one session, whatever ids its lines name;
--                               the readers of formats whose files hold several set it).
WITH split AS MATERIALIZED (
    -- split as every reader splits (queries/functions/file_lines.sql); materialised, so
    -- that the parse below runs in parallel over chunks of lines, not over chunks of
    -- 2,048 files (a batch of 2,500 files made one thread parse 2,048 of them)
    SELECT trace_path, line, raw, final_piece, not_utf8
    FROM file_lines(getvariable('readable_files'))
),
parsed AS (
    SELECT
        trace_path,
        line,
        -- the last piece of a file with no newline at its end
        final_piece,
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
    WHERE NOT not_utf8
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
),
checked AS (
    -- The JSON reader converts leniently ("3" -> 3, 3.5 -> 4, 7 -> '7'): a cheap scan finds
    -- the lines that might hold a field of the wrong type, and only those have the checked
    -- fields extracted, to name the first one of the wrong type.
    SELECT
        *,
        CASE WHEN ev IS NOT NULL AND may_have_wrong_types(raw) THEN wrong_field_index(raw) END
            AS bad_index
    FROM detailed
),
named AS (
    SELECT *, checked_fields()[bad_index] AS bad_field
    FROM checked
)
SELECT
    trace_path,
    line,
    CASE
        WHEN ev IS NULL AND line = 1 AND starts_with(raw, chr(65279))
            THEN 'not valid JSON: the file starts with a byte order mark (U+FEFF)'
        -- a JSON document spread over lines (a SWE-agent `.traj`, a pretty-printed file)
        WHEN ev IS NULL AND line = 1 AND raw IN ('{', '[')
            THEN 'not valid JSON: a JSON document over several lines, not JSON Lines (one '
                || 'event a line)'
        -- `null`, `3`, `"x"`: JSON, but no event
        WHEN ev IS NULL AND json_valid(raw) THEN 'not an event object (no "event_type")'
        WHEN ev IS NULL THEN 'not valid JSON'
        WHEN ev.event_type IS NULL THEN 'not an event object (no "event_type")'
        WHEN bad_field IS NOT NULL THEN '"' || bad_field || '" is not '
            || CASE
                WHEN bad_index <= 20 THEN 'a string'
                WHEN bad_field = 'exit_code' THEN 'an integer'
                -- an integer past 2^53 (past 2^63 too: JSON's UBIGINT), not any number
                WHEN json_type(raw, '$.' || bad_field) IN ('BIGINT', 'UBIGINT')
                    AND TRY_CAST(json_extract(raw, '$.' || bad_field) AS HUGEINT)
                        > 9007199254740991 THEN 'a count below 2^53'
                ELSE 'a non-negative integer'
            END
            -- a number as written (json_extract writes `1E0` again as `1.0`, `-0` as `0`):
            -- the key's one match in the line, when it is the value parsed
            || ': ' || left(coalesce(
                list_transform(
                    [regexp_extract_all(raw, '"' || bad_field || '"\s*:\s*(-?[0-9][0-9.eE+-]*)', 1)],
                    lambda written: CASE
                        WHEN len(written) = 1 AND TRY_CAST(written[1] AS DOUBLE)
                            = TRY_CAST(json_extract(raw, '$.' || bad_field) AS DOUBLE)
                            THEN written[1]
                    END
                )[1],
                json_extract(raw, '$.' || bad_field)::VARCHAR
            ), 40)
    END AS problem,
    ev IS NULL AND final_piece AND NOT json_valid(raw) AS torn,
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
    rare.reopen_number,
    NULL::VARCHAR AS cwd,
    NULL::BOOLEAN AS result_whole,
    NULL::VARCHAR[] AS changed_paths,
    NULL::BIGINT AS first_line,
    NULL::BIGINT AS last_line,
    NULL::VARCHAR AS file_session
FROM named
UNION ALL BY NAME
SELECT trace_path, 0 AS line, 'not valid UTF-8 text' AS problem
FROM split
WHERE not_utf8
