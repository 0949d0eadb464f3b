-- One row per inference turn, as `mur trace steps` lists them.
--
-- The duration is that of the first tool or skill call carrying the same turn number in
-- the trace, and `inputs` the inputs of the tool calls at that turn, in file order (the
-- renderer shows the first string of the first one that has one). Like `mur trace`, calls
-- are matched by turn number across the whole trace; in a file of several sessions (an
-- OpenHands output, whose instances each count their turns from 0: queries/events/
-- sessions.sql, `sessions_in_file`), across the session.
-- @column trace_path  VARCHAR  Trace file.
-- @column line        BIGINT   Line of the inference.
-- @column turn        BIGINT   Turn, as written (a missing turn counts as 0).
-- @column decision    VARCHAR  `tool_call`, `end_turn` or `text`.
-- @column tool_name   VARCHAR  Tool the model chose; NULL when none.
-- @column duration_ms BIGINT   Duration of the turn's first tool or skill call; NULL when none.
-- @column inputs      JSON[]   Inputs of the turn's tool calls, in line order.
WITH keyed AS (
    SELECT e.*, CASE WHEN s.sessions_in_file > 1 THEN e.session_id END AS part
    FROM events AS e
    JOIN sessions AS s USING (trace_path)
    WHERE e.event_type IN ('tool_call', 'skill_call', 'inference')
),
per_turn AS (
    SELECT
        trace_path,
        part,
        coalesce(turn, 0) AS turn,
        arg_min(duration_ms, line) AS duration_ms,
        list(input ORDER BY line) FILTER (
            WHERE event_type = 'tool_call' AND input IS NOT NULL
        ) AS inputs
    FROM keyed
    WHERE event_type IN ('tool_call', 'skill_call')
    GROUP BY ALL
)
SELECT
    i.trace_path,
    i.line,
    coalesce(i.turn, 0) AS turn,
    i.decision,
    i.tool_name,
    p.duration_ms,
    coalesce(p.inputs, []) AS inputs
FROM keyed AS i
LEFT JOIN per_turn AS p
    ON p.trace_path = i.trace_path AND p.part IS NOT DISTINCT FROM i.part
    AND p.turn = coalesce(i.turn, 0)
WHERE i.event_type = 'inference'
