-- Claude Code sessions (`~/.claude/projects/<project>/<session>.jsonl`) as Murmur events.
--
-- Reads the lines of `source_lines` whose format is `claude_code` and lands rows shaped like
-- queries/load/lines.sql's, so that every query works on them unchanged. Events keep the
-- line of the file that holds them; one line can give several events (they share it):
-- - `session_start` at the first line (session id: `sessionId`, and `agentId` for a
--   subagent's file; capsule `claude-code`, its `version`, the first model), `session_end`
--   at the last (totals counted from the events; `exit_status` NULL: the log does not say);
-- - one `inference` per assistant message (`message.id`; one response spans several lines)
--   at its first line: `input_tokens` = input + cache read + cache creation tokens of its
--   `usage` (the context the model read), `output_tokens`; `turn` counts messages from 0;
-- - a line whose `uuid` an earlier line of the file has is a copy: its calls (by their
--   ids), its message (by its id, as every message) and its compaction are the earlier's;
-- - one `tool_call` per `tool_use` block, at its line, `event_id` = the block's `id`; its
--   result is the `tool_result` block with that id (linked by id, not order): `status`
--   `error` when `is_error` (a failed command, "Sibling tool call errored", an interrupt),
--   `output_bytes` the result's text, `duration_ms` from the two lines' timestamps;
--   `state_effect` from the table `tools` below; `result_whole` from a Read's
--   `toolUseResult.file` (`startLine` 1 and `numLines` = `totalLines`: the whole file came
--   back, whatever `offset`/`limit` asked; fewer lines: a part; `first_line`/`last_line`
--   the lines it returned);
-- - a `Bash` call is followed (same line) by a `shell` event, as Murmur's runtime writes a
--   shell interpreter tool: `binary` `bash`, `command` the script, `exit_code` 0, or the
--   "Exit code N" of a failed result (1 when it names none);
-- - a `compact_boundary` line is a `compaction` (`tokens_before` = its `preTokens`; `turn`
--   the messages before it, so the turn of the next one; `tokens_after` unknown);
-- - inline subagent lines (`isSidechain`, Claude Code 1.0.x) are another agent's context:
--   a `context_switch` event where the file goes from the main agent's lines to a
--   subagent's and back (2.x writes each subagent to its own file: its own trace); so is a
--   prompt whose `parentUuid` is an earlier line than the one before it (the user went
--   back, `/rewind`: the lines between are no longer in the model's context);
-- - `progress` lines (copies of a subagent's messages), summaries, snapshots, queue
--   operations and synthetic messages give no event. A line that is not a JSON object is a
--   problem of the trace, as for Murmur traces (functions/line_problem.sql: a torn last line
--   is left out with a warning).
-- @column trace_path    VARCHAR  The session file.
-- @column line          BIGINT   Line of the file holding the event.
-- @column problem       VARCHAR  NULL, or what is wrong with the line.
-- @column torn          BOOLEAN  Not JSON and the last piece of a file with no newline at its end.
-- @column event_type    VARCHAR  session_start, inference, tool_call, shell, compaction, context_switch, session_end.
-- @column event_id      VARCHAR  A tool call's `tool_use` id.
-- @column cwd           VARCHAR  The working directory of the line (relative paths of commands are in it).
-- @column result_whole  BOOLEAN  A Read's result held the whole file (NULL when the log does not say).
-- @column first_line    BIGINT   First line of the file a Read returned (`toolUseResult.file`, else its `offset`).
-- @column last_line     BIGINT   Last line it returned (else `offset` + `limit` - 1).
WITH tools(tool, effect, even_failed, note) AS (
    -- what Claude Code's own tools do to the resource their input names; a tool not listed
    -- declares nothing (its effect is unknown); Bash goes through shell inference. An
    -- effect is declared when the call succeeded (as Murmur's editor does: an Edit whose
    -- text was not found wrote nothing), or whatever it ended in (`even_failed`)
    VALUES
        ('Read', 'read', false, 'file_path, optional offset/limit'),
        ('NotebookRead', 'read', false, 'notebook_path'),
        ('Grep', 'read', false, 'path (a file or a directory), pattern'),
        ('Glob', 'read', false, 'path (a directory), pattern'),
        ('LS', 'read', false, 'path (a directory)'),
        ('WebFetch', 'read', false, 'url (no path: takes no part)'),
        ('WebSearch', 'read', false, 'query (no path: takes no part)'),
        ('Edit', 'mutate', false, 'file_path'),
        ('MultiEdit', 'mutate', false, 'file_path'),
        ('Write', 'mutate', false, 'file_path'),
        ('NotebookEdit', 'mutate', false, 'notebook_path'),
        -- a subagent (2.x writes its lines to a file of its own; `Agent` from 2.1.63): its
        -- edits may have changed any file, a change that names no resource (the context
        -- policy's declared_in_file); one stopped midway may have written
        ('Task', 'mutate', true, 'description, prompt, subagent_type: no path'),
        ('Agent', 'mutate', true, 'the same tool, renamed')
),
src AS (
    SELECT trace_path, line, raw, final_piece
    FROM source_lines
    WHERE format = 'claude_code'
),
parsed AS (
    -- one parse per line, into just what is used: a tool result's text is kept as text
    -- (its size and the first words of an error), a Read's result as its line numbers
    SELECT
        trace_path,
        line,
        raw,
        final_piece,
        try(json_transform(raw, '{
            "type": "VARCHAR", "subtype": "VARCHAR", "sessionId": "VARCHAR", "uuid": "VARCHAR",
            "parentUuid": "VARCHAR",
            "agentId": "VARCHAR", "version": "VARCHAR", "timestamp": "VARCHAR",
            "isSidechain": "BOOLEAN", "cwd": "VARCHAR",
            "compactMetadata": {"preTokens": "BIGINT"},
            "message": {"id": "VARCHAR", "model": "VARCHAR",
                "content": [{"type": "VARCHAR", "id": "VARCHAR", "name": "VARCHAR",
                    "input": "JSON", "tool_use_id": "VARCHAR", "content": "VARCHAR",
                    "is_error": "BOOLEAN"}],
                "usage": {"input_tokens": "BIGINT", "output_tokens": "BIGINT",
                    "cache_read_input_tokens": "BIGINT",
                    "cache_creation_input_tokens": "BIGINT"}},
            "toolUseResult": {"file": {"startLine": "BIGINT", "numLines": "BIGINT",
                "totalLines": "BIGINT"}, "stdout": "VARCHAR", "stderr": "VARCHAR"}
        }')) AS j
    FROM src
    WHERE raw IS NOT NULL
),
entries AS MATERIALIZED (
    SELECT
        trace_path,
        line,
        j.type,
        j.subtype,
        j.sessionId AS session_id,
        j.agentId AS agent_id,
        j.version,
        epoch_ms(try_cast(j.timestamp AS TIMESTAMPTZ)) AS ts,
        coalesce(j.isSidechain, false) AS sidechain,
        j.uuid,
        j.parentUuid AS parent_uuid,
        j.cwd,
        j.compactMetadata.preTokens AS pre_tokens,
        j.message.id AS message_id,
        j.message.model AS model,
        j.message.usage AS usage,
        j.message.content AS blocks,
        {
            file: j.toolUseResult.file,
            stdout_bytes: strlen(j.toolUseResult.stdout),
            stderr_bytes: strlen(j.toolUseResult.stderr)
        } AS tool_use_result
    FROM parsed
    WHERE j IS NOT NULL
),
blocks AS MATERIALIZED (
    SELECT e.* EXCLUDE (blocks), unnest(e.blocks) AS b
    FROM entries AS e
    WHERE e.type IN ('user', 'assistant') AND len(e.blocks) > 0
),
uses AS (
    SELECT
        trace_path, line, ts, cwd, message_id,
        b.id AS call_id, b.name AS tool_name, b.input
    FROM blocks
    WHERE type = 'assistant' AND b.type = 'tool_use'
    -- a call written again (a line's copy, its `uuid` repeated: Claude Code has written a
    -- conversation's history twice into its file, anthropics/claude-code#5034) is the one
    -- call, where it first stood: else it was two, the second re-reading what the first
    -- read (a window over the calls alone: over every line, it cost the reader half again)
    QUALIFY call_id IS NULL OR row_number() OVER (PARTITION BY trace_path, call_id ORDER BY line) = 1
),
results AS (
    SELECT
        trace_path,
        b.tool_use_id AS call_id,
        arg_min(ts, line) AS ts,
        arg_min(coalesce(b.is_error, false), line) AS is_error,
        -- the result's text (a list of blocks: their JSON)
        arg_min(coalesce(strlen(b.content), 0), line) AS output_bytes,
        arg_min(
            try_cast(regexp_extract(left(b.content, 40), '^Exit code (-?[0-9]+)', 1) AS BIGINT),
            line
        ) AS exit_code,
        arg_min(tool_use_result, line) AS tool_use_result
    FROM blocks
    WHERE type = 'user' AND b.type = 'tool_result'
    GROUP BY ALL
),
messages AS (
    -- one inference per assistant message, numbered from 0 in the order they begin
    SELECT
        trace_path,
        message_id,
        min(line) AS line,
        row_number() OVER (PARTITION BY trace_path ORDER BY min(line)) - 1 AS turn,
        arg_min(ts, line) AS ts,
        max(coalesce(usage.input_tokens, 0) + coalesce(usage.cache_read_input_tokens, 0)
            + coalesce(usage.cache_creation_input_tokens, 0)) AS input_tokens,
        max(usage.output_tokens) AS output_tokens
    FROM entries
    WHERE type = 'assistant' AND message_id IS NOT NULL AND model IS DISTINCT FROM '<synthetic>'
    GROUP BY trace_path, message_id
),
calls AS (
    SELECT
        u.*,
        m.turn,
        r.ts AS result_ts,
        r.is_error,
        r.output_bytes,
        r.exit_code,
        r.tool_use_result,
        r.call_id IS NOT NULL AS answered,
        t.effect,
        t.even_failed
    FROM uses AS u
    LEFT JOIN messages AS m USING (trace_path, message_id)
    LEFT JOIN results AS r USING (trace_path, call_id)
    LEFT JOIN tools AS t ON t.tool = u.tool_name
),
first_tools AS (
    SELECT trace_path, message_id, arg_min(tool_name, line) AS tool_name
    FROM uses
    GROUP BY ALL
),
switches AS (
    -- where the file passes between the main agent's lines and an inline subagent's
    SELECT trace_path, line
    FROM (
        SELECT
            trace_path,
            line,
            sidechain,
            lag(sidechain) OVER (PARTITION BY trace_path ORDER BY line) AS before
        FROM entries
        WHERE type IN ('user', 'assistant')
    )
    WHERE sidechain <> before
    UNION
    -- where the user went back (`/rewind`, which writes nothing of its own): a prompt whose
    -- parent is not the conversation's line before it, but an earlier one; the lines after
    -- that one are no longer in the model's context (tool results and the lines of one
    -- response may name another parent: only a prompt's says the user went back)
    SELECT trace_path, line
    FROM (
        SELECT
            trace_path,
            line,
            type = 'user' AND NOT coalesce(
                list_contains(list_transform(blocks, lambda b: b.type), 'tool_result'), false
            ) AS prompt,
            parent_uuid,
            lag(uuid) OVER (PARTITION BY trace_path ORDER BY line) AS before
        FROM entries
        WHERE type IN ('user', 'assistant', 'system') AND NOT sidechain AND uuid IS NOT NULL
    )
    WHERE prompt AND parent_uuid <> before
),
bounds AS (
    SELECT
        trace_path,
        min(line) AS first_line,
        max(line) AS last_line,
        arg_min(session_id, line) FILTER (WHERE session_id IS NOT NULL) AS session_id,
        arg_min(agent_id, line) FILTER (WHERE agent_id IS NOT NULL) AS agent_id,
        arg_min(version, line) FILTER (WHERE version IS NOT NULL) AS version,
        arg_min(model, line) FILTER (WHERE model IS NOT NULL AND model <> '<synthetic>') AS model,
        min(ts) AS first_ts,
        max(ts) AS last_ts
    FROM entries
    GROUP BY trace_path
    -- a file none of whose lines is Claude Code's, as recognising a file's first line tells
    -- (it names its `sessionId`, or is of a type of `formats.CLAUDE_TYPES`: the variable
    -- `claude_types`), holds no Claude Code session (a file given with --format-in that is
    -- not one): it has no event, and loading says so
    HAVING count(*) FILTER (
        WHERE session_id IS NOT NULL OR list_contains(getvariable('claude_types'), type)
    ) > 0
),
events AS (
    SELECT
        trace_path, first_line AS line, 'session_start' AS event_type,
        first_ts AS timestamp,
        session_id || coalesce('/agent-' || agent_id, '') AS session_id,
        'claude-code' AS capsule_name, version AS capsule_version, model,
        NULL::BIGINT AS turn, NULL::VARCHAR AS event_id
    FROM bounds
    UNION ALL BY NAME
    SELECT
        m.trace_path, m.line, 'inference' AS event_type, m.ts AS timestamp, m.turn,
        m.input_tokens, m.output_tokens,
        CASE WHEN f.tool_name IS NOT NULL THEN 'tool_call' ELSE 'end_turn' END AS decision,
        f.tool_name
    FROM messages AS m
    LEFT JOIN first_tools AS f USING (trace_path, message_id)
    UNION ALL BY NAME
    SELECT
        trace_path,
        line,
        'tool_call' AS event_type,
        ts AS timestamp,
        coalesce(turn, 0) AS turn,
        call_id AS event_id,
        tool_name,
        input,
        strlen(input::VARCHAR) AS input_bytes,
        CASE WHEN answered THEN output_bytes END AS output_bytes,
        elapsed(ts, result_ts) AS duration_ms,
        CASE WHEN is_error THEN 'error' WHEN answered THEN 'ok' END AS status,
        -- as the table `tools` says: on success, or whatever the call ended in
        CASE WHEN NOT coalesce(is_error, false) OR even_failed THEN effect END AS state_effect,
        CASE WHEN tool_name IN ('NotebookRead', 'NotebookEdit')
            THEN input ->> '$.notebook_path' END AS resource_id,
        cwd,
        CASE WHEN tool_name = 'Read' AND tool_use_result.file.numLines IS NOT NULL
            THEN coalesce(tool_use_result.file.startLine, 1) <= 1
                AND tool_use_result.file.numLines >= tool_use_result.file.totalLines
        END AS result_whole,
        CASE WHEN tool_name = 'Read' THEN coalesce(
            tool_use_result.file.startLine,
            CASE WHEN json_type(input, '$.limit') IS NOT NULL
                THEN coalesce(try_cast(input ->> '$.offset' AS BIGINT), 1) END
        ) END AS first_line,
        CASE WHEN tool_name = 'Read' THEN coalesce(
            tool_use_result.file.startLine + tool_use_result.file.numLines - 1,
            coalesce(try_cast(input ->> '$.offset' AS BIGINT), 1)
                + try_cast(input ->> '$.limit' AS BIGINT) - 1
        ) END AS last_line
    FROM calls
    UNION ALL BY NAME
    SELECT
        trace_path,
        line,
        'shell' AS event_type,
        ts AS timestamp,
        coalesce(turn, 0) AS turn,
        'bash' AS "binary",
        input ->> '$.command' AS command,
        CASE
            WHEN NOT answered THEN NULL
            WHEN is_error THEN coalesce(exit_code, 1)
            ELSE 0
        END AS exit_code,
        tool_use_result.stdout_bytes,
        tool_use_result.stderr_bytes,
        elapsed(ts, result_ts) AS duration_ms,
        cwd
    FROM calls
    WHERE tool_name = 'Bash'
    UNION ALL BY NAME
    SELECT
        e.trace_path, e.line, 'compaction' AS event_type, e.ts AS timestamp,
        (SELECT count(*) FROM messages AS m WHERE m.trace_path = e.trace_path AND m.line < e.line)
            AS turn,
        e.pre_tokens AS tokens_before
    FROM entries AS e
    WHERE e.type = 'system' AND e.subtype = 'compact_boundary'
    QUALIFY e.uuid IS NULL OR row_number() OVER (PARTITION BY e.trace_path, e.uuid ORDER BY e.line) = 1
    UNION ALL BY NAME
    SELECT trace_path, line, 'context_switch' AS event_type
    FROM switches
    UNION ALL BY NAME
    SELECT
        b.trace_path,
        b.last_line AS line,
        'session_end' AS event_type,
        b.last_ts AS timestamp,
        (SELECT count(*) FROM messages AS m WHERE m.trace_path = b.trace_path) AS total_turns,
        (SELECT sum(input_tokens) FROM messages AS m WHERE m.trace_path = b.trace_path)
            AS total_input_tokens,
        (SELECT sum(output_tokens) FROM messages AS m WHERE m.trace_path = b.trace_path)
            AS total_output_tokens,
        (SELECT count(*) FROM uses AS u WHERE u.trace_path = b.trace_path) AS total_tool_calls,
        (SELECT count(*) FROM uses AS u WHERE u.trace_path = b.trace_path AND u.tool_name = 'Bash')
            AS total_shell_calls,
        elapsed(b.first_ts, b.last_ts) AS duration_ms
    FROM bounds AS b
)
SELECT
    e.* EXCLUDE (session_id),
    coalesce(e.session_id, s.session_id || coalesce('/agent-' || s.agent_id, '')) AS session_id,
    NULL::VARCHAR AS problem,
    false AS torn
FROM events AS e
LEFT JOIN bounds AS s USING (trace_path)
UNION ALL BY NAME
-- the lines it takes as none: their problem (functions/line_problem.sql)
SELECT s.trace_path, s.line, unnest(line_problem(s.raw, s.final_piece, e.line IS NOT NULL))
FROM src AS s
LEFT JOIN entries AS e USING (trace_path, line)  -- the lines parsed (not parsed again)
WHERE line_problem(s.raw, s.final_piece, e.line IS NOT NULL) IS NOT NULL
