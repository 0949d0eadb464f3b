-- OpenTelemetry GenAI spans (an agent's traces, written to a file) as Murmur events.
--
-- Reads the lines of `source_lines` whose format is `otel`, in either form a file of spans
-- takes: one span per line as an SDK's file exporter writes them (GitHub Copilot CLI:
-- `{"type": "span", traceId, spanId, name, startTime: [s, ns], endTime, status: {code},
-- attributes: {…}, resource: {attributes: {…}}}`, flat attributes; `metric` lines are
-- passed over), or OTLP JSON, a collector's file exporter (`{"resourceSpans": [{resource,
-- scopeSpans: [{spans: […]}]}]}` per line, attributes as `{key, value: {stringValue |
-- intValue | doubleValue | boolValue}}` lists, times as `startTimeUnixNano`). What the
-- GenAI semantic conventions put on a span is read, and nothing else:
-- - a session per `copilot.session_id` (a resource attribute), else per trace (`traceId`),
--   when it holds a GenAI span (one with a `gen_ai.operation.name`); each takes a block
--   of positions in the file, in the order the sessions began: its `session_start`, its
--   events in the order their spans started, its `session_end`. Spans are written when
--   they end, so `line` numbers these positions, not lines of the file; a finding's
--   `call_id` (`gen_ai.tool.call.id`) finds its span;
-- - `session_start`: capsule `copilot.agent` (else the invoke_agent span's
--   `gen_ai.agent.name`, else `service.name`), its `gen_ai.agent.version` (else
--   `service.version`), the first chat's model; `session_end` counts (`exit_status` NULL);
-- - one `inference` per `chat` (or `text_completion`, `generate_content`) span, numbered
--   from 0 by start, with `gen_ai.usage.input_tokens` (which counts cached input too) and
--   `output_tokens`; a tool call's `turn` is the last chat that started before it;
-- - one `tool_call` per `execute_tool` span: `tool_name` `gen_ai.tool.name`, `event_id`
--   `gen_ai.tool.call.id`, `duration_ms` its end minus its start, `status` `error` when the
--   span's status code is 2 (ERROR) or it names an `error.type`, else `ok` (no code, as
--   OTLP JSON writes UNSET: `"status": {}`, is `ok`). Only with
--   content capture on does a span carry `gen_ai.tool.call.arguments` (the `input`, a JSON
--   string parsed; text that is not a JSON object as `{"input": text}`) and
--   `gen_ai.tool.call.result` (`output_bytes` its length); without them a call has no
--   input, so no resource, and takes no part in redundancy; `output_bytes` is NULL;
-- - `state_effect` from the table `tools` (GitHub Copilot CLI's tools), declared only when
--   the call succeeded; `view` with a `view_range` [first, last] returned those lines
--   (`last` -1: to the end); `apply_patch` changes the files of its `*** Add/Update/Delete
--   File:` and `*** Move to:` headers (`changed_paths`);
-- - a `bash` call whose arguments hold a `command` is followed (same position) by a
--   `shell` event: `binary` `bash`, the script, the exit code its result reports
--   (`… completed with exit code N>`), else NULL.
-- A line that is not a JSON object is a problem of the trace, as for Murmur traces
-- (functions/line_problem.sql); so is a span with no `traceId`, `spanId`, start or end time, or
-- one that ends before it starts.
-- @column trace_path    VARCHAR    The span file.
-- @column line          BIGINT     Position of the event (see above); for a problem, the line of the file.
-- @column problem       VARCHAR    NULL, or what is wrong with the line.
-- @column torn          BOOLEAN    Not JSON and the last piece of a file with no newline at its end.
-- @column event_type    VARCHAR    session_start, inference, tool_call, shell, session_end.
-- @column event_id      VARCHAR    A tool call's `gen_ai.tool.call.id`.
-- @column changed_paths VARCHAR[]  Files an apply_patch changed.
-- @column first_line    BIGINT     First line of the file a `view` with a range returned.
-- @column last_line     BIGINT     Last line it returned (NULL: to the end).
-- @column file_session  VARCHAR    The session the event belongs to (`session_id`): a file holds several.
WITH tools(tool, effect) AS (
    -- what GitHub Copilot CLI's own tools do to the path their arguments name; a tool not
    -- listed declares nothing (its effect is unknown); bash goes through shell inference
    VALUES
        ('view', 'read'),
        ('glob', 'read'),
        ('grep', 'read'),
        ('rg', 'read'),
        ('web_fetch', 'read'),
        ('edit', 'mutate'),
        ('create', 'mutate')
),
src AS (
    SELECT trace_path, line, raw, final_piece
    FROM source_lines
    WHERE format = 'otel'
),
parsed AS (
    SELECT
        trace_path,
        line,
        raw,
        final_piece,
        try(json_transform(raw, '{
            "type": "VARCHAR", "traceId": "VARCHAR", "spanId": "VARCHAR", "name": "VARCHAR",
            "startTime": "BIGINT[]", "endTime": "BIGINT[]", "status": {"code": "VARCHAR"},
            "attributes": "JSON", "resource": {"attributes": "JSON"},
            "resourceSpans": [{"resource": {"attributes": "JSON[]"},
                "scopeSpans": [{"spans": "JSON[]"}]}]
        }')) AS j
    FROM src
    WHERE raw IS NOT NULL
),
exported AS (
    -- a file exporter's spans: one a line, attributes flat
    SELECT
        trace_path,
        line,
        1 AS seq,
        j.traceId AS trace_id,
        j.spanId AS span_id,
        CASE WHEN len(j.startTime) = 2 THEN j.startTime[1] * 1000000000 + j.startTime[2] END
            AS start_ns,
        CASE WHEN len(j.endTime) = 2 THEN j.endTime[1] * 1000000000 + j.endTime[2] END
            AS end_ns,
        j.status.code AS status_code,
        CASE WHEN json_type(j.attributes) = 'OBJECT' THEN j.attributes END AS attrs,
        CASE WHEN json_type(j.resource.attributes) = 'OBJECT' THEN j.resource.attributes END
            AS res,
        'startTime' AS start_field,
        'endTime' AS end_field
    FROM parsed
    WHERE j.resourceSpans IS NULL
        AND coalesce(j.type, CASE WHEN j.spanId IS NOT NULL THEN 'span' END) = 'span'
),
otlp_spans AS (
    -- OTLP JSON: the spans of each line's resources and scopes, in order
    SELECT
        p.trace_path,
        p.line,
        row_number() OVER (PARTITION BY p.trace_path, p.line ORDER BY r.rn, s.sn, x.xn) AS seq,
        r.rs.resource.attributes AS res_list,
        json_transform(x.span, '{
            "traceId": "VARCHAR", "spanId": "VARCHAR", "startTimeUnixNano": "VARCHAR",
            "endTimeUnixNano": "VARCHAR", "status": {"code": "VARCHAR"}, "attributes": "JSON[]"
        }') AS k
    FROM parsed AS p,
        unnest(p.j.resourceSpans) WITH ORDINALITY AS r(rs, rn),
        unnest(r.rs.scopeSpans) WITH ORDINALITY AS s(ss, sn),
        unnest(s.ss.spans) WITH ORDINALITY AS x(span, xn)
    WHERE p.j.resourceSpans IS NOT NULL
),
otlp_lists AS (
    -- OTLP attribute lists as entries {key, value}: each key's first value, the value
    -- as JSON (`intValue` is a string in OTLP JSON)
    SELECT
        * EXCLUDE (res_list),
        list_transform(k.attributes, lambda a: a ->> '$.key') AS attr_keys,
        list_transform(res_list, lambda a: a ->> '$.key') AS res_keys,
        k.attributes AS attr_list,
        res_list
    FROM otlp_spans
),
otlp AS (
    SELECT
        trace_path,
        line,
        seq,
        k.traceId AS trace_id,
        k.spanId AS span_id,
        try_cast(k.startTimeUnixNano AS BIGINT) AS start_ns,
        try_cast(k.endTimeUnixNano AS BIGINT) AS end_ns,
        CASE k.status.code WHEN 'STATUS_CODE_ERROR' THEN '2' ELSE k.status.code END
            AS status_code,
        to_json(map_from_entries(list_transform(
            list_filter(
                list_transform(attr_list, lambda a, i: {a: a, first: list_position(attr_keys, a ->> '$.key') = i}),
                lambda e: e.first AND json_type(e.a, '$.key') = 'VARCHAR'
            ),
            lambda e: {key: e.a ->> '$.key', value: CASE
                WHEN json_type(e.a, '$.value.stringValue') = 'VARCHAR' THEN e.a -> '$.value.stringValue'
                WHEN (e.a -> '$.value.intValue') IS NOT NULL
                    THEN try_cast(e.a ->> '$.value.intValue' AS BIGINT)::JSON
                WHEN json_type(e.a, '$.value.doubleValue') IN ('DOUBLE', 'BIGINT', 'UBIGINT')
                    THEN e.a -> '$.value.doubleValue'
                WHEN json_type(e.a, '$.value.boolValue') = 'BOOLEAN' THEN e.a -> '$.value.boolValue'
            END}
        ))) AS attrs,
        to_json(map_from_entries(list_transform(
            list_filter(
                list_transform(res_list, lambda a, i: {a: a, first: list_position(res_keys, a ->> '$.key') = i}),
                lambda e: e.first AND json_type(e.a, '$.key') = 'VARCHAR'
            ),
            lambda e: {key: e.a ->> '$.key', value: e.a -> '$.value.stringValue'}
        ))) AS res,
        'startTimeUnixNano' AS start_field,
        'endTimeUnixNano' AS end_field
    FROM otlp_lists
),
raw_spans AS (
    SELECT
        *,
        CASE
            WHEN trace_id IS NULL THEN 'span without a traceId'
            WHEN span_id IS NULL THEN 'span without a spanId'
            WHEN start_ns IS NULL THEN 'span without a ' || start_field
            WHEN end_ns IS NULL THEN 'span without an ' || end_field
            WHEN end_ns < start_ns THEN 'span ends before it starts'
        END AS problem
    FROM (SELECT * FROM exported UNION ALL BY NAME SELECT * FROM otlp)
),
spans AS MATERIALIZED (
    SELECT
        s.trace_path,
        s.line,
        s.seq,
        s.trace_id,
        s.start_ns,
        s.end_ns,
        s.status_code,
        json_transform(coalesce(s.attrs, '{}'), '{
            "gen_ai.operation.name": "VARCHAR", "gen_ai.tool.name": "VARCHAR",
            "gen_ai.tool.call.id": "VARCHAR", "gen_ai.tool.call.arguments": "JSON",
            "gen_ai.tool.call.result": "JSON", "error.type": "VARCHAR",
            "gen_ai.request.model": "VARCHAR", "gen_ai.response.model": "VARCHAR",
            "gen_ai.usage.input_tokens": "BIGINT", "gen_ai.usage.output_tokens": "BIGINT",
            "gen_ai.agent.name": "VARCHAR", "gen_ai.agent.version": "VARCHAR"
        }') AS a,
        json_transform(coalesce(s.res, '{}'), '{
            "copilot.session_id": "VARCHAR", "copilot.agent": "VARCHAR",
            "service.name": "VARCHAR", "service.version": "VARCHAR"
        }') AS r
    FROM raw_spans AS s
    WHERE s.problem IS NULL
),
kinds AS (
    SELECT
        trace_path,
        line,
        seq,
        coalesce(r."copilot.session_id", trace_id) AS session_id,
        start_ns,
        end_ns,
        status_code,
        a,
        r,
        CASE
            WHEN a."gen_ai.operation.name" = 'execute_tool' THEN 'tool'
            WHEN a."gen_ai.operation.name" IN ('chat', 'text_completion', 'generate_content')
                THEN 'chat'
        END AS kind
    FROM spans
),
sessions AS (
    SELECT
        trace_path,
        session_id,
        min(start_ns) AS first_ns,
        max(end_ns) AS last_ns,
        count(*) FILTER (WHERE kind IS NOT NULL) AS items,
        arg_min(r."copilot.agent", start_ns) FILTER (WHERE r."copilot.agent" IS NOT NULL)
            AS agent,
        arg_min(a."gen_ai.agent.name", start_ns) FILTER (
            WHERE a."gen_ai.operation.name" = 'invoke_agent' AND a."gen_ai.agent.name" IS NOT NULL
        ) AS agent_name,
        arg_min(r."service.name", start_ns) FILTER (WHERE r."service.name" IS NOT NULL)
            AS service,
        arg_min(a."gen_ai.agent.version", start_ns) FILTER (
            WHERE a."gen_ai.agent.version" IS NOT NULL
        ) AS agent_version,
        arg_min(r."service.version", start_ns) FILTER (WHERE r."service.version" IS NOT NULL)
            AS service_version,
        arg_min(coalesce(a."gen_ai.response.model", a."gen_ai.request.model"), start_ns)
            FILTER (WHERE kind = 'chat'
                AND coalesce(a."gen_ai.response.model", a."gen_ai.request.model") IS NOT NULL)
            AS model
    FROM kinds
    GROUP BY ALL
    -- a trace of other spans only (HTTP, a database) is no agent's session
    HAVING count(*) FILTER (WHERE a."gen_ai.operation.name" IS NOT NULL) > 0
),
blocks AS (
    -- each session's block of positions: its start, its items, its end
    SELECT
        *,
        coalesce(sum(items + 2) OVER (
            PARTITION BY trace_path ORDER BY first_ns, session_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), 0) AS base
    FROM sessions
),
items AS MATERIALIZED (
    SELECT
        k.*,
        b.base + 1 + row_number() OVER w AS pos,
        -- count(CASE ...): a running count with a FILTER is quadratic in DuckDB 2.0
        -- (queries/context/waste.sql)
        count(CASE WHEN k.kind = 'chat' THEN 1 END) OVER (w ROWS UNBOUNDED PRECEDING) - 1 AS chat_n
    FROM kinds AS k
    JOIN blocks AS b USING (trace_path, session_id)
    WHERE k.kind IS NOT NULL
    WINDOW w AS (
        PARTITION BY k.trace_path, k.session_id
        ORDER BY k.start_ns, k.kind, k.line, k.seq
    )
),
calls AS MATERIALIZED (
    SELECT
        i.trace_path,
        i.session_id,
        i.pos,
        i.start_ns,
        i.end_ns,
        nullif(i.chat_n, -1) AS turn,
        i.a."gen_ai.tool.name" AS tool_name,
        i.a."gen_ai.tool.call.id" AS call_id,
        -- no code (OTLP JSON leaves out a default: `"status": {}` is UNSET) is not ERROR
        i.status_code IS NOT DISTINCT FROM '2' OR i.a."error.type" IS NOT NULL AS failed,
        CASE
            WHEN json_type(i.a."gen_ai.tool.call.arguments") = 'OBJECT'
                THEN i.a."gen_ai.tool.call.arguments"
            WHEN json_type(i.a."gen_ai.tool.call.arguments") = 'VARCHAR' THEN coalesce(
                CASE WHEN json_type(try(json(i.a."gen_ai.tool.call.arguments" ->> '$'))) = 'OBJECT'
                    THEN json(i.a."gen_ai.tool.call.arguments" ->> '$') END,
                json_object('input', i.a."gen_ai.tool.call.arguments" ->> '$')
            )
            WHEN i.a."gen_ai.tool.call.arguments" IS NOT NULL
                THEN json_object('input', i.a."gen_ai.tool.call.arguments")
        END AS input,
        CASE
            WHEN json_type(i.a."gen_ai.tool.call.result") = 'VARCHAR'
                THEN i.a."gen_ai.tool.call.result" ->> '$'
            ELSE i.a."gen_ai.tool.call.result"::VARCHAR
        END AS result
    FROM items AS i
    WHERE i.kind = 'tool'
),
chats AS (
    SELECT
        i.trace_path,
        i.session_id,
        i.pos,
        i.start_ns,
        i.chat_n AS turn,
        i.a."gen_ai.usage.input_tokens" AS input_tokens,
        i.a."gen_ai.usage.output_tokens" AS output_tokens,
        (
            SELECT arg_min(c.tool_name, c.pos)
            FROM calls AS c
            WHERE c.trace_path = i.trace_path AND c.session_id = i.session_id
                AND c.turn = i.chat_n
        ) AS tool_name,
        EXISTS (
            SELECT 1 FROM calls AS c
            WHERE c.trace_path = i.trace_path AND c.session_id = i.session_id
                AND c.turn = i.chat_n
        ) AS called
    FROM items AS i
    WHERE i.kind = 'chat'
),
events AS (
    SELECT
        trace_path, base + 1 AS line, 'session_start' AS event_type, session_id,
        first_ns // 1000000 AS timestamp,
        coalesce(agent, agent_name, service) AS capsule_name,
        coalesce(agent_version, service_version) AS capsule_version,
        model
    FROM blocks
    UNION ALL BY NAME
    SELECT
        trace_path, pos AS line, 'inference' AS event_type, session_id,
        start_ns // 1000000 AS timestamp, turn, input_tokens, output_tokens,
        CASE WHEN called THEN 'tool_call' ELSE 'end_turn' END AS decision, tool_name
    FROM chats
    UNION ALL BY NAME
    SELECT
        c.trace_path,
        c.pos AS line,
        'tool_call' AS event_type,
        c.session_id,
        c.start_ns // 1000000 AS timestamp,
        coalesce(c.turn, 0) AS turn,
        c.call_id AS event_id,
        c.tool_name,
        c.input,
        strlen(c.input::VARCHAR) AS input_bytes,
        strlen(c.result) AS output_bytes,
        round(elapsed(c.start_ns, c.end_ns) / 1000000)::BIGINT AS duration_ms,
        CASE WHEN c.failed THEN 'error' ELSE 'ok' END AS status,
        -- declared only when the call succeeded, as Murmur's editor does
        CASE WHEN NOT c.failed THEN t.effect END AS state_effect,
        CASE WHEN c.tool_name = 'view' AND c.input IS NOT NULL THEN
            CASE WHEN json_type(c.input, '$.view_range') = 'ARRAY'
                THEN coalesce(try_cast(c.input ->> '$.view_range[0]' AS BIGINT), 1) <= 1
                    AND try_cast(c.input ->> '$.view_range[1]' AS BIGINT) = -1
            END
        END AS result_whole,
        CASE WHEN c.tool_name = 'view' AND json_type(c.input, '$.view_range') = 'ARRAY'
            THEN coalesce(try_cast(c.input ->> '$.view_range[0]' AS BIGINT), 1)
        END AS first_line,
        CASE WHEN c.tool_name = 'view' AND json_type(c.input, '$.view_range') = 'ARRAY'
            THEN nullif(try_cast(c.input ->> '$.view_range[1]' AS BIGINT), -1)
        END AS last_line,
        CASE WHEN c.tool_name = 'apply_patch' AND json_type(c.input, '$.input') = 'VARCHAR' THEN
            list_transform(
                regexp_extract_all(
                    c.input ->> '$.input',
                    '(?m)^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$', 1
                ),
                lambda f: trim(f)
            )
        END AS changed_paths
    FROM calls AS c
    LEFT JOIN tools AS t ON t.tool = c.tool_name
    UNION ALL BY NAME
    SELECT
        trace_path,
        pos AS line,
        'shell' AS event_type,
        session_id,
        start_ns // 1000000 AS timestamp,
        coalesce(turn, 0) AS turn,
        'bash' AS "binary",
        input ->> '$.command' AS command,
        try_cast(regexp_extract(result, 'completed with exit code (-?[0-9]+)>', 1) AS BIGINT)
            AS exit_code,
        strlen(result) AS stdout_bytes,
        round(elapsed(start_ns, end_ns) / 1000000)::BIGINT AS duration_ms
    FROM calls
    WHERE tool_name = 'bash' AND json_type(input, '$.command') = 'VARCHAR'
    UNION ALL BY NAME
    SELECT
        b.trace_path,
        b.base + b.items + 2 AS line,
        'session_end' AS event_type,
        b.session_id,
        b.last_ns // 1000000 AS timestamp,
        (SELECT count(*) FROM chats AS h
            WHERE h.trace_path = b.trace_path AND h.session_id = b.session_id) AS total_turns,
        (SELECT sum(input_tokens) FROM chats AS h
            WHERE h.trace_path = b.trace_path AND h.session_id = b.session_id)
            AS total_input_tokens,
        (SELECT sum(output_tokens) FROM chats AS h
            WHERE h.trace_path = b.trace_path AND h.session_id = b.session_id)
            AS total_output_tokens,
        (SELECT count(*) FROM calls AS c
            WHERE c.trace_path = b.trace_path AND c.session_id = b.session_id) AS total_tool_calls,
        (SELECT count(*) FROM calls AS c
            WHERE c.trace_path = b.trace_path AND c.session_id = b.session_id
                AND c.tool_name = 'bash') AS total_shell_calls,
        round(elapsed(b.first_ns, b.last_ns) / 1000000)::BIGINT AS duration_ms
    FROM blocks AS b
)
SELECT *, session_id AS file_session, NULL::VARCHAR AS problem, false AS torn
FROM events
UNION ALL BY NAME
-- the lines it takes as none: their problem (functions/line_problem.sql)
SELECT s.trace_path, s.line, unnest(line_problem(s.raw, s.final_piece, p.j IS NOT NULL))
FROM src AS s
LEFT JOIN parsed AS p USING (trace_path, line)
WHERE line_problem(s.raw, s.final_piece, p.j IS NOT NULL) IS NOT NULL
UNION ALL BY NAME
SELECT trace_path, line, arg_min(problem, seq) AS problem, false AS torn
FROM raw_spans
WHERE problem IS NOT NULL
GROUP BY trace_path, line
