-- Codex CLI sessions (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as Murmur events.
--
-- Reads the lines of `source_lines` whose format is `codex` (`{timestamp, type, payload}`)
-- and lands rows shaped like queries/load/lines.sql's. Events keep the line of the file
-- that holds them (several events can share one):
-- - `session_start` at the first line (`session_meta`: id, `cli_version`, the first
--   `turn_context` model), `session_end` at the last (totals counted; `exit_status` NULL);
-- - one `inference` per model response: a run of `response_item`s the model wrote
--   (reasoning, assistant message, function and custom tool calls, web searches) that no
--   input (a call's output, a user or developer message) or `token_count` event
--   interrupts; at its first line, with the `last_token_usage` of the `token_count` that
--   closes it, else of a new one just before it that closes no other response (Codex 0.58
--   writes it there) (`input_tokens` counts cached input too; none in logs without them);
-- - one `tool_call` per `function_call`, `custom_tool_call` or `local_shell_call`, at its
--   line, `event_id` its `call_id`, `input` the parsed `arguments` (a custom tool's text as
--   `{"input": …}`, a local shell call's `action` as `{"command": argv, "workdir": …}`),
--   status from the `exec_command_end` / `patch_apply_end` event or the output's
--   "Process exited with code N" / "Exit code: N" (`error` when not 0); `write_stdin` calls
--   that poll a running command are not calls: their output counts toward the command's;
-- - a shell tool's call (`exec_command`, `shell_command`, the older `shell`, a local shell
--   call) is followed (same line) by a `shell` event as Murmur's runtime writes a shell
--   interpreter tool: `binary` the shell, `command` the script, `cwd` the call's `workdir`
--   (else the session's), `exit_code`;
-- - a patch changes the files its `patch_apply_end` event names (`changes`, whatever the
--   call's form: the `apply_patch` tool, freeform or a function, or `apply_patch` run
--   through a shell), else those its `*** Add/Update/Delete File:` and `*** Move to:`
--   headers name (`changed_paths`, in the call's working directory);
-- - a call's working directory is its turn's (the latest `turn_context`'s `cwd`, else the
--   session's); a command's `workdir` is taken in it;
-- - a `compacted` line is a `compaction` (the model's context was summarised; `turn` the
--   responses before it, so the turn of the next one; the token counts unknown).
-- A line that is not a JSON object is a problem of the trace, as for Murmur traces
-- (functions/line_problem.sql).
-- @column trace_path    VARCHAR    The session file.
-- @column line          BIGINT     Line of the file holding the event.
-- @column problem       VARCHAR    NULL, or what is wrong with the line.
-- @column torn          BOOLEAN    Not JSON and the last piece of a file with no newline at its end.
-- @column event_type    VARCHAR    session_start, inference, tool_call, shell, compaction, session_end.
-- @column event_id      VARCHAR    A tool call's `call_id`.
-- @column cwd           VARCHAR    Working directory of a command or patch.
-- @column changed_paths VARCHAR[]  Files an apply_patch changed.
WITH src AS (
    SELECT trace_path, line, raw, final_piece
    FROM source_lines
    WHERE format = 'codex'
),
parsed AS (
    SELECT
        trace_path,
        line,
        raw,
        final_piece,
        try(json_transform(raw, '{
            "timestamp": "VARCHAR", "type": "VARCHAR",
            "payload": {
                "type": "VARCHAR", "id": "VARCHAR", "cwd": "VARCHAR", "cli_version": "VARCHAR",
                "model": "VARCHAR", "role": "VARCHAR", "name": "VARCHAR", "call_id": "VARCHAR",
                "arguments": "VARCHAR", "input": "VARCHAR", "output": "JSON",
                "exit_code": "BIGINT", "success": "BOOLEAN", "command": "VARCHAR[]",
                "aggregated_output": "VARCHAR", "action": "JSON", "changes": "JSON",
                "info": {
                    "last_token_usage": {"input_tokens": "BIGINT", "output_tokens": "BIGINT"},
                    "total_token_usage": {"input_tokens": "BIGINT", "output_tokens": "BIGINT"}
                }
            }
        }')) AS j
    FROM src
    WHERE raw IS NOT NULL
),
entries AS MATERIALIZED (
    SELECT
        trace_path,
        line,
        j.type,
        j.payload AS p,
        epoch_ms(try_cast(j.timestamp AS TIMESTAMPTZ)) AS ts,
        -- a response the model wrote, an input to it, or neither
        CASE
            WHEN j.type = 'response_item' AND (
                j.payload.type IN ('reasoning', 'function_call', 'custom_tool_call',
                                   'web_search_call', 'local_shell_call')
                OR (j.payload.type = 'message' AND j.payload.role = 'assistant')
            ) THEN 'model'
            WHEN j.type = 'response_item' THEN 'input'
            WHEN j.type = 'event_msg' AND j.payload.type = 'token_count' THEN 'tokens'
            WHEN j.type = 'compacted' THEN 'input'
        END AS role
    FROM parsed
    WHERE j IS NOT NULL
),
runs AS MATERIALIZED (
    -- model responses: runs of model items between inputs and token counts
    SELECT
        *,
        -- count(CASE ...), not count(*) FILTER (...): a running count with a FILTER takes
        -- DuckDB 2.0 time quadratic in the partition (queries/context/waste.sql)
        count(CASE WHEN role IN ('input', 'tokens') THEN 1 END) OVER (
            PARTITION BY trace_path ORDER BY line ROWS UNBOUNDED PRECEDING
        ) AS breaks
    FROM entries
    WHERE role IS NOT NULL
),
responses AS (
    SELECT
        r.trace_path,
        r.breaks,
        min(r.line) AS line,
        arg_min(r.ts, r.line) AS ts,
        row_number() OVER (PARTITION BY r.trace_path ORDER BY min(r.line)) - 1 AS turn,
        arg_min(coalesce(r.p.name, 'local_shell'), r.line) FILTER (
            WHERE r.p.type IN ('function_call', 'custom_tool_call', 'local_shell_call')
                AND r.p.name IS DISTINCT FROM 'write_stdin'
        ) AS tool_name
    FROM runs AS r
    WHERE r.role = 'model'
    GROUP BY r.trace_path, r.breaks
),
counts AS (
    -- the token counts that say something: a `last_token_usage`, and whether their total is
    -- new (Codex 0.58 writes each count twice, just before its response and again after
    -- the response's output)
    SELECT
        trace_path,
        breaks,
        p.info.last_token_usage AS tokens,
        p.info.total_token_usage IS DISTINCT FROM lag(p.info.total_token_usage) OVER (
            PARTITION BY trace_path ORDER BY line
        ) AS new_total
    FROM runs
    WHERE role = 'tokens' AND p.info IS NOT NULL
),
usage AS (
    -- a response's token count: the one that closes it, the first break after it (as Codex
    -- writes it since 0.77); else a new one just before it that closes no other response
    -- (as 0.58 writes it: before, those responses had no tokens)
    SELECT r.trace_path, r.breaks, coalesce(a.tokens, b.tokens) AS tokens
    FROM (SELECT DISTINCT trace_path, breaks FROM runs WHERE role = 'model') AS r
    LEFT JOIN counts AS a ON a.trace_path = r.trace_path AND a.breaks - 1 = r.breaks
    LEFT JOIN counts AS b
        ON b.trace_path = r.trace_path AND b.breaks = r.breaks AND b.new_total
        AND NOT EXISTS (
            SELECT 1 FROM runs AS m
            WHERE m.role = 'model' AND m.trace_path = b.trace_path AND m.breaks = b.breaks - 1
        )
),
cwds AS (
    -- the working directory from a line on: the session's, then each turn's (a turn can
    -- run in another: Codex's `OverrideTurnContext { cwd }`, a resumed rollout)
    SELECT trace_path, line, p.cwd
    FROM entries
    WHERE type IN ('session_meta', 'turn_context') AND p.cwd IS NOT NULL
),
context AS (
    SELECT
        trace_path,
        arg_min(p.id, line) FILTER (WHERE type = 'session_meta') AS session_id,
        arg_min(p.cli_version, line) FILTER (WHERE type = 'session_meta') AS version,
        arg_min(p.cwd, line) FILTER (WHERE type IN ('session_meta', 'turn_context')) AS cwd,
        arg_min(p.model, line) FILTER (WHERE type = 'turn_context') AS model,
        min(line) AS first_line,
        max(line) AS last_line,
        min(ts) AS first_ts,
        max(ts) AS last_ts
    FROM entries
    GROUP BY trace_path
    -- a file none of whose lines is Codex's, as recognising a file's first line tells (a
    -- `type` and a `payload`), holds no Codex session (a file given with --format-in that
    -- is not one): it has no event, and loading says so
    HAVING count(*) FILTER (WHERE type IS NOT NULL AND p IS NOT NULL) > 0
),
raw_outputs AS (
    SELECT
        trace_path,
        p.call_id,
        arg_min(ts, line) AS ts,
        arg_min(CASE WHEN json_type(p.output) = 'VARCHAR' THEN p.output ->> '$'
            ELSE p.output::VARCHAR END, line) AS text
    FROM entries
    WHERE type = 'response_item' AND p.type IN ('function_call_output', 'custom_tool_call_output')
    GROUP BY ALL
),
outputs AS (
    -- with what Codex says of the command before what it printed (`Output:`)
    SELECT *, split_part(text, chr(10) || 'Output:', 1) AS header
    FROM raw_outputs
),
ends AS (
    SELECT
        trace_path,
        p.call_id,
        arg_min(ts, line) AS ts,
        arg_min(p.exit_code, line) AS exit_code,
        arg_min(p.success, line) AS success,
        arg_min(p.command, line) AS command,
        arg_min(p.aggregated_output, line) AS aggregated_output,
        -- the files a patch changed, as Codex says whatever the call's form (its own tool,
        -- a function, `apply_patch` run through a shell): the keys of `changes`, absolute,
        -- and where a file moved to
        arg_min(
            list_filter(
                json_keys(p.changes) || json_extract_string(p.changes, '$.*.move_path'),
                lambda f: f IS NOT NULL
            ),
            line
        ) FILTER (WHERE json_type(p.changes) = 'OBJECT') AS patched_files
    FROM entries
    WHERE type = 'event_msg' AND p.type IN ('exec_command_end', 'patch_apply_end')
    GROUP BY ALL
),
calls AS MATERIALIZED (
    SELECT
        e.trace_path,
        e.line,
        e.ts,
        -- a local shell call of the Chat Completions API has its `id` alone
        coalesce(e.p.call_id, e.p.id) AS call_id,
        CASE WHEN e.p.type = 'local_shell_call' THEN 'local_shell' ELSE e.p.name END AS tool_name,
        CASE
            WHEN e.p.type = 'custom_tool_call' THEN json_object('input', e.p.input)
            -- its command an argv, as the older `shell` tool's (`bash -lc script`)
            WHEN e.p.type = 'local_shell_call' THEN json_object(
                'command', e.p.action -> '$.command',
                'workdir', e.p.action ->> '$.working_directory'
            )
            ELSE try_cast(e.p.arguments AS JSON)
        END AS input,
        e.p.input AS custom_input,
        r.turn
    FROM runs AS e
    LEFT JOIN responses AS r USING (trace_path, breaks)
    WHERE e.type = 'response_item'
        AND e.p.type IN ('function_call', 'custom_tool_call', 'local_shell_call')
),
polls AS (
    -- what polls of a running command (write_stdin with its session id) returned
    SELECT
        c.trace_path,
        c.input ->> '$.session_id' AS process,
        sum(strlen(o.text)) AS bytes,
        max(o.ts) AS ts,
        arg_max(
            try_cast(regexp_extract(o.header, 'Process exited with code (-?[0-9]+)', 1) AS BIGINT),
            c.line
        ) FILTER (WHERE regexp_matches(o.header, 'Process exited with code')) AS exit_code
    FROM calls AS c
    JOIN outputs AS o USING (trace_path, call_id)
    WHERE c.tool_name = 'write_stdin' AND c.input ->> '$.session_id' IS NOT NULL
    GROUP BY ALL
),
detailed AS (
    SELECT
        c.*,
        o.call_id IS NOT NULL OR d.call_id IS NOT NULL AS answered,
        d.command AS end_command,
        coalesce(
            d.exit_code,
            -- the shell tools' output as Codex words it for the model, read in its header
            -- (before `Output:`): what the command printed may say the same words
            try_cast(regexp_extract(o.header, 'Process exited with code (-?[0-9]+)', 1) AS BIGINT),
            try_cast(regexp_extract(o.header, '^Exit code: (-?[0-9]+)', 1) AS BIGINT),
            q.exit_code,
            CASE WHEN d.success IS NOT NULL THEN CASE WHEN d.success THEN 0 ELSE 1 END END,
            CASE WHEN json_valid(o.text) THEN try_cast(json_extract(o.text, '$.metadata.exit_code') AS BIGINT) END
        ) AS exit_code,
        coalesce(strlen(d.aggregated_output), strlen(o.text) + coalesce(q.bytes, 0))
            AS output_bytes,
        elapsed(c.ts, greatest(d.ts, o.ts, q.ts)) AS duration_ms,
        -- a command's `workdir`, relative to its turn's directory, else that directory
        CASE
            WHEN starts_with(c.input ->> '$.workdir', '/') OR w.cwd IS NULL
                THEN coalesce(c.input ->> '$.workdir', x.cwd)
            WHEN c.input ->> '$.workdir' IS NOT NULL THEN w.cwd || '/' || (c.input ->> '$.workdir')
            ELSE w.cwd
        END AS cwd,
        d.patched_files,
        -- the tools that run a command in a shell, one per model family's `shell_type`
        c.tool_name IN (
            'exec_command', 'shell_command', 'shell', 'container.exec', 'local_shell'
        ) AS shell_tool
    FROM calls AS c
    LEFT JOIN outputs AS o USING (trace_path, call_id)
    LEFT JOIN ends AS d USING (trace_path, call_id)
    LEFT JOIN polls AS q
        ON q.trace_path = c.trace_path
        AND q.process = regexp_extract(o.header, 'Process running with session ID ([0-9]+)', 1)
    LEFT JOIN context AS x USING (trace_path)
    ASOF LEFT JOIN cwds AS w ON w.trace_path = c.trace_path AND c.line >= w.line
    WHERE c.tool_name <> 'write_stdin'
),
shells AS (
    -- the shell and the script a command ran: exec_command's `cmd` (its `shell`, else the
    -- one exec_command_end names), shell_command's `command` (a script), the argv of the
    -- older `shell` tool and of a local shell call (`bash -lc script`)
    SELECT
        *,
        CASE
            WHEN json_type(input, '$.command') = 'ARRAY' THEN (input -> '$.command') ->> '$[0]'
            ELSE coalesce(input ->> '$.shell', end_command[1], 'bash')
        END AS "binary",
        CASE
            WHEN json_type(input, '$.command') IS DISTINCT FROM 'ARRAY'
                THEN coalesce(input ->> '$.cmd', input ->> '$.command')
            WHEN regexp_matches((input -> '$.command') ->> '$[1]', '^-\w*c$')
                THEN (input -> '$.command') ->> '$[2]'
            ELSE array_to_string(json_extract_string(input, '$.command[*]')[2:], ' ')
        END AS command
    FROM detailed
    WHERE shell_tool
),
patched AS (
    -- where the log has no `patch_apply_end` to say it: the files a patch's headers name,
    -- in its text (a freeform tool's input; a function's `input`; a shell's `apply_patch`
    -- argument or heredoc)
    SELECT
        trace_path,
        line,
        list_transform(
            regexp_extract_all(
                text, '(?m)^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$', 1
            ),
            lambda f: trim(f)
        ) AS changed_paths
    FROM (
        SELECT
            trace_path,
            line,
            tool_name,
            CASE WHEN json_type(input, '$.command') = 'ARRAY'
                THEN array_to_string(json_extract_string(input, '$.command[*]'), chr(10))
                ELSE coalesce(custom_input, input ->> '$.input', input ->> '$.cmd',
                    input ->> '$.command')
            END AS text
        FROM calls
    )
    WHERE tool_name = 'apply_patch'
        OR (contains(text, 'apply_patch') AND contains(text, '*** Begin Patch'))
),
events AS (
    SELECT
        trace_path, first_line AS line, 'session_start' AS event_type, first_ts AS timestamp,
        'codex' AS capsule_name, version AS capsule_version, model
    FROM context
    UNION ALL BY NAME
    SELECT
        r.trace_path, r.line, 'inference' AS event_type, r.ts AS timestamp, r.turn,
        u.tokens.input_tokens AS input_tokens, u.tokens.output_tokens AS output_tokens,
        CASE WHEN r.tool_name IS NOT NULL THEN 'tool_call' ELSE 'end_turn' END AS decision,
        r.tool_name
    FROM responses AS r
    LEFT JOIN usage AS u USING (trace_path, breaks)
    UNION ALL BY NAME
    SELECT
        d.trace_path,
        d.line,
        'tool_call' AS event_type,
        d.ts AS timestamp,
        coalesce(d.turn, 0) AS turn,
        d.call_id AS event_id,
        d.tool_name,
        d.input,
        strlen(d.input::VARCHAR) AS input_bytes,
        d.output_bytes,
        d.duration_ms,
        CASE
            WHEN NOT d.answered THEN NULL
            WHEN coalesce(d.exit_code, 0) <> 0 THEN 'error'
            ELSE 'ok'
        END AS status,
        d.cwd,
        coalesce(d.patched_files, p.changed_paths) AS changed_paths
    FROM detailed AS d
    LEFT JOIN patched AS p USING (trace_path, line)
    UNION ALL BY NAME
    SELECT
        trace_path, line, 'shell' AS event_type, ts AS timestamp, coalesce(turn, 0) AS turn,
        "binary", command, CASE WHEN answered THEN exit_code END AS exit_code,
        output_bytes AS stdout_bytes, duration_ms, cwd
    FROM shells
    UNION ALL BY NAME
    SELECT
        e.trace_path, e.line, 'compaction' AS event_type, e.ts AS timestamp,
        (SELECT count(*) FROM responses AS r WHERE r.trace_path = e.trace_path AND r.line < e.line)
            AS turn
    FROM entries AS e
    WHERE e.type = 'compacted'
    UNION ALL BY NAME
    SELECT
        x.trace_path,
        x.last_line AS line,
        'session_end' AS event_type,
        x.last_ts AS timestamp,
        r.turns AS total_turns,
        r.input_tokens AS total_input_tokens,
        r.output_tokens AS total_output_tokens,
        c.calls AS total_tool_calls,
        c.shells AS total_shell_calls,
        elapsed(x.first_ts, x.last_ts) AS duration_ms
    FROM context AS x
    LEFT JOIN (
        SELECT
            trace_path,
            count(*) AS turns,
            sum(u.tokens.input_tokens) AS input_tokens,
            sum(u.tokens.output_tokens) AS output_tokens
        FROM responses
        LEFT JOIN usage AS u USING (trace_path, breaks)
        GROUP BY trace_path
    ) AS r USING (trace_path)
    LEFT JOIN (
        SELECT
            trace_path,
            count(*) AS calls,
            count(*) FILTER (WHERE shell_tool) AS shells
        FROM detailed
        GROUP BY trace_path
    ) AS c USING (trace_path)
)
SELECT
    e.*,
    x.session_id,
    NULL::VARCHAR AS problem,
    false AS torn
FROM events AS e
LEFT JOIN context AS x USING (trace_path)
UNION ALL BY NAME
-- the lines it takes as none: their problem (functions/line_problem.sql)
SELECT s.trace_path, s.line, unnest(line_problem(s.raw, s.final_piece, e.line IS NOT NULL))
FROM src AS s
LEFT JOIN entries AS e USING (trace_path, line)  -- the lines parsed (not parsed again)
WHERE line_problem(s.raw, s.final_piece, e.line IS NOT NULL) IS NOT NULL
