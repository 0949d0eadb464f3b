-- Redundant calls, reference semantics, in the traces read quickly (queries/quick/traces.sql):
-- the rows queries/redundant/reference.sql gives for them, from queries/quick/lines.sql.
--
-- The fields of a tool call are converted by the same JSON reader, with the same types, as
-- in queries/load/lines.sql (`state_effect` as text: only the JSON string "read" becomes
-- `read`, the one value the policy asks of it); its identity is resolved as in
-- queries/events/tool_calls.sql (the declared `resource_id` when a non-empty string, else
-- the first string among the input keys `path`, `file`, `file_path`, `filepath`,
-- `filename`, compared lower-cased as there (`FİLE` is no `file`), the byte-wise
-- smallest first among keys that collide); history is kept per trace, in line order, as
-- in queries/redundant/reference.sql. Traces are known by their position
-- until the findings are named. A value json_transform gives as JSON is re-serialised
-- text: it starts with `"` exactly when it is a string and with `{` when an object, which
-- saves parsing it again with json_type (about 10 % of this query).
-- @column session_id      VARCHAR  Session of the redundant call (the line names it: quick/lines.sql).
-- @column trace_path      VARCHAR  Trace file of the call.
-- @column line            BIGINT   Line of the redundant call.
-- @column call_id         VARCHAR  The line's `event_id`; NULL when none.
-- @column turn            BIGINT   Turn of the redundant call (a missing turn counts as 0).
-- @column tool_name       VARCHAR  Tool, as written.
-- @column resource        VARCHAR  The identity read again.
-- @column resource_source VARCHAR  `declared` or `path_field`.
-- @column state_effect    VARCHAR  Always `read`.
-- @column prior_line      BIGINT   Line of the read it repeats.
-- @column prior_turn      BIGINT   Turn of the read it repeats.
-- @column output_bytes    BIGINT   Output size of the redundant call.
-- @column duration_ms     BIGINT   Wall time of the redundant call.
WITH fields AS (
    SELECT
        l.file_index,
        l.line,
        json_transform(l.raw, '{
            "session_id": "VARCHAR", "turn": "BIGINT", "event_id": "VARCHAR",
            "tool_name": "VARCHAR", "input": "JSON", "output_bytes": "BIGINT",
            "duration_ms": "BIGINT", "state_effect": "VARCHAR", "resource_id": "JSON"
        }') AS ev
    FROM quick_lines AS l
    JOIN quick_traces AS t USING (file_index)
    WHERE l.tool_call AND t.quick
),
-- materialised: read twice, for the distinct inputs and for the calls
candidates AS MATERIALIZED (
    SELECT
        file_index,
        line,
        ev.session_id,
        ev.event_id AS call_id,
        coalesce(ev.turn, 0) AS turn,
        ev.tool_name,
        ev.input,
        ev.output_bytes,
        ev.duration_ms,
        -- read as text: only the JSON string "read" becomes `read` (6 % of this query's
        -- CPU time against a JSON value parsed again)
        ev.state_effect,
        CASE WHEN starts_with(ev.resource_id, '"') THEN ev.resource_id ->> '$' END
            AS resource_id
    FROM fields
),
-- the path guess depends on the input alone: made once for each distinct input (reads of
-- one file repeat their input)
guesses AS (
    SELECT
        input,
        CASE
            WHEN len(path_keys) = 0 THEN NULL
            -- every candidate key lower-case and written once: the five fields, in order
            -- (one key, the usual case, needs no list_distinct: a tenth of this query)
            WHEN path_keys = list_transform(path_keys, lambda k: lower(k))
                AND (len(path_keys) = 1 OR len(list_distinct(path_keys)) = len(path_keys))
                THEN coalesce(
                    CASE WHEN starts_with(path.path, '"') THEN path.path ->> '$' END,
                    CASE WHEN starts_with(path.file, '"') THEN path.file ->> '$' END,
                    CASE WHEN starts_with(path.file_path, '"') THEN path.file_path ->> '$' END,
                    CASE WHEN starts_with(path.filepath, '"') THEN path.filepath ->> '$' END,
                    CASE WHEN starts_with(path.filename, '"') THEN path.filename ->> '$' END
                )
            -- otherwise every entry ranked by (priority, key): the first string (a key
            -- written twice holding its last value, as in queries/events/tool_calls.sql)
            ELSE list_sort(list_filter(
                list_transform(
                    list_zip(json_keys(input), json_extract(input, '$.*'),
                        generate_series(1, len(json_keys(input)))),
                    lambda e: {
                        priority: path_key_rank(e[1]),
                        key: e[1],
                        value: e[2],
                        last: e[3] = len(json_keys(input)) + 1
                            - list_position(list_reverse(json_keys(input)), e[1])
                    }
                ),
                lambda c: c.priority IS NOT NULL AND c.last AND json_type(c.value) = 'VARCHAR'
            ))[1].value ->> '$'
        END AS guessed_path
    FROM (
        SELECT
            *,
            CASE WHEN len(path_keys) > 0 THEN json_transform(input, '{
                "path": "JSON", "file": "JSON", "file_path": "JSON", "filepath": "JSON",
                "filename": "JSON"
            }') END AS path
        FROM (
            SELECT
                input,
                CASE WHEN starts_with(input, '{') THEN
                    list_filter(
                        json_keys(input),
                        lambda k: path_key_rank(k) IS NOT NULL
                    )
                END AS path_keys
            FROM (SELECT DISTINCT input FROM candidates)
        )
    )
),
-- not materialised: the window reads it as it is made. Storing its rows first (to resolve
-- the resource once, for the filter below and for the row) cost this query 12 % of its
-- CPU time (5,000 sessions, medians of fifteen).
calls AS (
    SELECT
        c.*,
        CASE WHEN c.resource_id <> '' THEN c.resource_id ELSE g.guessed_path END AS resource,
        CASE WHEN c.resource_id <> '' THEN 'declared' ELSE 'path_field' END AS resource_source
    FROM candidates AS c
    LEFT JOIN guesses AS g ON g.input IS NOT DISTINCT FROM c.input
),
-- the window sorts only what the history needs; the rest of a finding is joined back by
-- its line (one tool call a line in a Murmur trace): carrying the calls' other columns
-- through the sort cost this query 11-13 % of its CPU time (2,000 sessions, one thread)
history AS (
    SELECT
        file_index,
        line,
        resource,
        resource_source,
        state_effect,
        lag(state_effect) OVER identity AS prior_effect,
        lag(line) OVER identity AS prior_line,
        lag(turn) OVER identity AS prior_turn
    FROM calls
    WHERE resource IS NOT NULL
    WINDOW identity AS (PARTITION BY file_index, resource ORDER BY line)
)
SELECT
    c.session_id,
    t.trace_path,
    h.line,
    c.call_id,
    c.turn,
    c.tool_name,
    h.resource,
    h.resource_source,
    h.state_effect,
    h.prior_line,
    h.prior_turn,
    c.output_bytes,
    c.duration_ms
FROM history AS h
JOIN candidates AS c USING (file_index, line)
JOIN quick_traces AS t USING (file_index)
WHERE h.state_effect = 'read' AND h.prior_effect = 'read'
