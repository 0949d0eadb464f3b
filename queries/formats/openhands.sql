-- OpenHands evaluation output (`output.jsonl`: one instance, a whole session, per line) as
-- Murmur events.
--
-- Reads the lines of `source_lines` whose format is `openhands`. Each instance's `history`
-- is its event stream: actions, and observations linked to them by `cause` = the action's
-- `id`. A line of the file holds a whole session, so here `line` numbers positions in the
-- file instead: each instance takes a block of `len(history) + 2` positions after the
-- previous one's (its `session_start`, its history events in order, its `session_end`);
-- `session_id` is the `instance_id` (`<id>~N` for a run of it again on line N of the file,
-- `<id>~N~N` when another instance is really named `<id>~N`, `line-N`
-- for an instance without one on line N), and a
-- finding's `call_id` the action's `id`.
-- - `session_start`: capsule `openhands` (`metadata.agent_class`), its model; a new
--   instance is a new context;
-- - one `inference` per model response (`tool_call_metadata.model_response.id`), at its
--   first action, with its `usage` (prompt and completion tokens);
-- - one `tool_call` per agent action but messages and the system prompt: `tool_name` the
--   action (`read`, `edit`, `run`, `think`, `finish`, …), `input` what it asked (`path`
--   with `view_range` for a read; `path`, `command` and the edit's text for an edit;
--   `command` for a run), `status` `error` when its observation is an error (`ERROR:`, an
--   `error` observation, a non-zero exit code), NULL when it has none (a `finish`, which
--   never has one, is `ok`); `state_effect` from the table `tools`;
--   a read without `view_range` is whole unless its output was clipped (`result_whole`),
--   and `first_line`/`last_line` say which lines it returned;
-- - a `run` is followed (same position) by a `shell` event: `binary` `bash`, `command`,
--   `exit_code`, `cwd` the working directory the previous command left (the shell is kept
--   between commands);
-- - a `condensation` action is a `compaction` (`turn` the responses before it; no token counts).
-- A line that is not a JSON object is a problem of the trace, as for Murmur traces
-- (functions/line_problem.sql).
-- @column trace_path  VARCHAR  The output file.
-- @column line        BIGINT   Position of the event in the file (see above).
-- @column problem     VARCHAR  NULL, or what is wrong with the line.
-- @column torn        BOOLEAN  Not JSON and the last piece of a file with no newline at its end.
-- @column event_type  VARCHAR  session_start, inference, tool_call, shell, compaction, session_end.
-- @column event_id    VARCHAR  A tool call's action id.
-- @column first_line  BIGINT   First line of the file a read returned, when known.
-- @column last_line   BIGINT   Last line it returned (NULL: to the end).
-- @column file_session VARCHAR The session the event belongs to (`session_id`): a file holds several.
WITH tools(tool, effect, even_failed) AS (
    -- what OpenHands' actions do to the path they name, declared when the action succeeded
    -- (as Murmur's editor does: a failed edit, `ERROR: ...`, wrote nothing) or whatever it
    -- ended in (`even_failed`); a code cell (`run_ipython`) and a delegation to another
    -- agent name no path and may change any file, a change that names no resource (the
    -- context policy's declared_in_file), even one that failed midway
    VALUES ('read', 'read', false), ('edit', 'mutate', false), ('write', 'mutate', false),
        ('run_ipython', 'mutate', true), ('delegate', 'mutate', true)
),
src AS (
    SELECT trace_path, line, raw, final_piece
    FROM source_lines
    WHERE format = 'openhands'
),
parsed AS (
    SELECT
        trace_path,
        line,
        raw,
        final_piece,
        try(json_transform(raw, '{
            "instance_id": "VARCHAR", "history": "JSON[]",
            "metadata": {"agent_class": "VARCHAR", "llm_config": {"model": "VARCHAR"}}
        }')) AS j
    FROM src
    WHERE raw IS NOT NULL
),
-- each instance's name: its `instance_id`, or for one without, its line in the file
-- (`line-3`: not the first session's, as loading would name a line that says none); a real
-- id first among the instances that would share a name
named AS (
    SELECT
        trace_path,
        line,
        j,
        coalesce(j.instance_id, 'line-' || line) AS given,
        row_number() OVER (
            PARTITION BY trace_path, coalesce(j.instance_id, 'line-' || line)
            ORDER BY j.instance_id IS NULL, line
        ) AS run
    FROM parsed
    WHERE j IS NOT NULL AND j.history IS NOT NULL
),
-- an instance run again in the same output (a retry) is a session of its own, named after
-- its line: `<id>~<line>` (its actions' ids start again from 1), `<id>~<line>~<line>` where
-- another instance is really named `<id>~<line>`, and so on. No two names meet: the first
-- runs' are their ids, distinct; a retry's ends with its own line, which no other retry's
-- does; and it repeats that ending once more than any first run's name built so
retries AS (
    SELECT
        n.trace_path,
        n.line,
        1 + coalesce(max(
            CASE WHEN f.given = n.given || repeat('~' || n.line, k.times) THEN k.times END
        ), 0) AS times
    FROM named AS n
    LEFT JOIN named AS f
        ON f.trace_path = n.trace_path AND f.run = 1
        AND starts_with(f.given, n.given || '~' || n.line)
    LEFT JOIN LATERAL (
        SELECT (length(f.given) - length(n.given)) // length('~' || n.line) AS times
    ) AS k ON true
    WHERE n.run > 1
    GROUP BY ALL
),
instances AS (
    SELECT
        n.trace_path,
        n.line AS file_line,
        -- two sessions of one name would pair one's actions with the other's observations
        CASE WHEN n.run = 1 THEN n.given ELSE n.given || repeat('~' || n.line, r.times) END
            AS session_id,
        n.j.metadata.agent_class AS agent,
        n.j.metadata.llm_config.model AS model,
        n.j.history,
        coalesce(sum(len(n.j.history) + 2) OVER (
            PARTITION BY n.trace_path ORDER BY n.line
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), 0) AS base
    FROM named AS n
    LEFT JOIN retries AS r USING (trace_path, line)
),
history AS (
    SELECT
        i.trace_path,
        i.session_id,
        i.base + h.n + 1 AS line,
        json_transform(h.event, '{
            "id": "BIGINT", "timestamp": "VARCHAR", "source": "VARCHAR", "action": "VARCHAR",
            "observation": "VARCHAR", "cause": "BIGINT", "args": "JSON", "content": "VARCHAR",
            "extras": {"metadata": {"exit_code": "BIGINT", "working_dir": "VARCHAR"}},
            "tool_call_metadata": {"model_response": {"id": "VARCHAR",
                "usage": {"prompt_tokens": "BIGINT", "completion_tokens": "BIGINT"}}}
        }') AS e
    FROM instances AS i, unnest(i.history) WITH ORDINALITY AS h(event, n)
),
events_in AS MATERIALIZED (
    SELECT
        trace_path,
        session_id,
        line,
        e.*,
        epoch_ms(try_cast(e.timestamp AS TIMESTAMP)) AS ts
    FROM history
),
observations AS (
    SELECT
        trace_path,
        session_id,
        cause,
        arg_min(observation, line) AS observation,
        arg_min(content, line) AS content,
        arg_min(ts, line) AS ts,
        arg_min(extras.metadata.exit_code, line) AS exit_code,
        arg_min(extras.metadata.working_dir, line) AS working_dir
    FROM events_in
    WHERE observation IS NOT NULL AND cause IS NOT NULL
    GROUP BY ALL
),
actions AS MATERIALIZED (
    SELECT
        a.trace_path,
        a.session_id,
        a.line,
        a.id,
        a.action,
        a.args,
        a.ts,
        a.tool_call_metadata.model_response AS response,
        o.observation,
        o.content,
        o.ts AS result_ts,
        o.exit_code,
        o.cause IS NOT NULL AS answered,
        -- the shell keeps its directory: a command runs where the previous one left it
        lag(o.working_dir IGNORE NULLS) OVER (
            PARTITION BY a.trace_path, a.session_id, a.action = 'run' ORDER BY a.line
        ) AS cwd
    FROM events_in AS a
    LEFT JOIN observations AS o
        ON o.trace_path = a.trace_path AND o.session_id = a.session_id AND o.cause = a.id
    WHERE a.action IS NOT NULL AND a.source = 'agent'
        AND a.action NOT IN ('system', 'message', 'recall')
),
responses AS (
    SELECT
        trace_path,
        session_id,
        response.id AS response_id,
        min(line) AS line,
        arg_min(ts, line) AS ts,
        arg_min(action, line) AS tool_name,
        arg_min(response.usage.prompt_tokens, line) AS input_tokens,
        arg_min(response.usage.completion_tokens, line) AS output_tokens
    FROM actions
    WHERE response.id IS NOT NULL
    GROUP BY ALL
),
turns AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY trace_path, session_id ORDER BY line) - 1 AS turn
    FROM responses
),
calls AS MATERIALIZED (
    SELECT
        a.*,
        t.turn,
        coalesce(a.observation = 'error', false)
            OR coalesce(starts_with(a.content, 'ERROR:'), false)
            OR coalesce(a.exit_code, 0) <> 0 AS failed,
        CASE a.action
            WHEN 'read' THEN json_object('path', a.args ->> '$.path', 'view_range', a.args -> '$.view_range')
            WHEN 'edit' THEN json_object(
                'path', a.args ->> '$.path', 'command', a.args ->> '$.command',
                'old_str', a.args ->> '$.old_str', 'new_str', a.args ->> '$.new_str',
                'insert_line', a.args -> '$.insert_line', 'file_text', a.args ->> '$.file_text'
            )
            WHEN 'run' THEN json_object('command', a.args ->> '$.command')
            ELSE a.args
        END AS input,
        -- the lines of the file a read showed: its range, else line 1 to the last one shown
        -- when the output was clipped
        coalesce(a.content LIKE '%<response clipped>%', false) AS clipped
    FROM actions AS a
    LEFT JOIN (
        SELECT
            r.trace_path, r.session_id, x.id, t.turn
        FROM turns AS t
        JOIN responses AS r USING (trace_path, session_id, response_id)
        JOIN actions AS x
            ON x.trace_path = r.trace_path AND x.session_id = r.session_id
            AND x.response.id = r.response_id
    ) AS t USING (trace_path, session_id, id)
),
events AS (
    SELECT
        trace_path, base + 1 AS line, 'session_start' AS event_type, session_id,
        'openhands' AS capsule_name, agent AS capsule_version, model
    FROM instances
    UNION ALL BY NAME
    SELECT
        trace_path, line, 'inference' AS event_type, session_id, ts AS timestamp, turn,
        input_tokens, output_tokens, 'tool_call' AS decision, tool_name
    FROM turns
    UNION ALL BY NAME
    SELECT
        c.trace_path,
        c.line,
        'tool_call' AS event_type,
        c.session_id,
        c.ts AS timestamp,
        coalesce(c.turn, 0) AS turn,
        c.id::VARCHAR AS event_id,
        c.action AS tool_name,
        c.input,
        strlen(c.input::VARCHAR) AS input_bytes,
        strlen(c.content) AS output_bytes,
        elapsed(c.ts, c.result_ts) AS duration_ms,
        -- `finish` ends the instance and gets no observation by design: not unanswered
        CASE
            WHEN NOT c.answered AND c.action IS DISTINCT FROM 'finish' THEN NULL
            WHEN c.failed THEN 'error'
            ELSE 'ok'
        END AS status,
        CASE WHEN NOT c.failed OR t.even_failed THEN t.effect END AS state_effect,
        CASE WHEN c.action = 'read' THEN
            json_type(c.args, '$.view_range') IS DISTINCT FROM 'ARRAY' AND NOT c.clipped
        END AS result_whole,
        CASE WHEN c.action = 'read' THEN coalesce(
            try_cast(c.args ->> '$.view_range[0]' AS BIGINT), 1
        ) END AS first_line,
        CASE
            WHEN c.action <> 'read' THEN NULL
            WHEN json_type(c.args, '$.view_range') = 'ARRAY'
                THEN nullif(try_cast(c.args ->> '$.view_range[1]' AS BIGINT), -1)
            WHEN c.clipped THEN try_cast(list_last(
                regexp_extract_all(c.content, '(?m)^\s*([0-9]+)\t', 1)
            ) AS BIGINT)
        END AS last_line,
        c.cwd
    FROM calls AS c
    LEFT JOIN tools AS t ON t.tool = c.action
    WHERE c.action <> 'condensation'
    UNION ALL BY NAME
    SELECT
        trace_path, line, 'shell' AS event_type, session_id, ts AS timestamp,
        coalesce(turn, 0) AS turn, 'bash' AS "binary", args ->> '$.command' AS command,
        CASE WHEN answered THEN coalesce(exit_code, CASE WHEN failed THEN 1 ELSE 0 END) END
            AS exit_code,
        strlen(content) AS stdout_bytes, elapsed(ts, result_ts) AS duration_ms, cwd
    FROM calls
    WHERE action = 'run'
    UNION ALL BY NAME
    SELECT
        c.trace_path, c.line, 'compaction' AS event_type, c.session_id, c.ts AS timestamp,
        (
            SELECT count(*) FROM turns AS t
            WHERE t.trace_path = c.trace_path AND t.session_id = c.session_id AND t.line < c.line
        ) AS turn
    FROM calls AS c
    WHERE c.action = 'condensation'
    UNION ALL BY NAME
    SELECT
        i.trace_path,
        i.base + len(i.history) + 2 AS line,
        'session_end' AS event_type,
        i.session_id,
        (SELECT count(*) FROM turns AS t WHERE t.trace_path = i.trace_path AND t.session_id = i.session_id) AS total_turns,
        (SELECT sum(input_tokens) FROM turns AS t WHERE t.trace_path = i.trace_path AND t.session_id = i.session_id) AS total_input_tokens,
        (SELECT sum(output_tokens) FROM turns AS t WHERE t.trace_path = i.trace_path AND t.session_id = i.session_id) AS total_output_tokens,
        (SELECT count(*) FROM calls AS c WHERE c.trace_path = i.trace_path AND c.session_id = i.session_id AND c.action <> 'condensation') AS total_tool_calls,
        (SELECT count(*) FROM calls AS c WHERE c.trace_path = i.trace_path AND c.session_id = i.session_id AND c.action = 'run') AS total_shell_calls
    FROM instances AS i
)
SELECT *, session_id AS file_session, NULL::VARCHAR AS problem, false AS torn
FROM events
UNION ALL BY NAME
-- the lines it takes as none: their problem (functions/line_problem.sql)
SELECT s.trace_path, s.line, unnest(line_problem(s.raw, s.final_piece, p.j IS NOT NULL))
FROM src AS s
LEFT JOIN parsed AS p USING (trace_path, line)
WHERE line_problem(s.raw, s.final_piece, p.j IS NOT NULL) IS NOT NULL
