-- Tool and skill calls grouped by turn, for the listings of `mur trace show`.
--
-- One row per (trace, session, kind, turn): a file holds one session, but for an OpenHands
-- output, whose instances (sessions) each count their turns from 0. For tool calls, turns
-- with an inference but no call are listed too, with that inference's decision (the last
-- one at that turn, as `mur trace` keeps it) and no calls. Calls keep their file order.
-- @column trace_path VARCHAR   Trace file.
-- @column kind       VARCHAR   `tool_call` or `skill_call`.
-- @column turn       BIGINT    Turn (a missing turn counts as 0).
-- @column decision   VARCHAR   Decision of the turn's inference, for tool-call turns with no call.
-- @column calls      STRUCT[]  {name, duration_ms, status, input} per call, in line order.
-- @column session_id   VARCHAR  Session of the turn.
-- @column session_line BIGINT   First line of that session in its file: the sessions of a file in order.
WITH calls AS (
    SELECT
        trace_path,
        session_id,
        event_type AS kind,
        coalesce(turn, 0) AS turn,
        list({
            name: coalesce(tool_name, skill_name),
            duration_ms: duration_ms,
            status: status,
            input: input
        } ORDER BY line) AS calls
    FROM events
    WHERE event_type IN ('tool_call', 'skill_call')
    GROUP BY ALL
),
decisions AS (
    SELECT trace_path, session_id, 'tool_call' AS kind, turn, arg_max(decision, line) AS decision
    FROM events
    WHERE event_type = 'inference' AND turn IS NOT NULL
    GROUP BY ALL
),
session_lines AS (
    SELECT trace_path, session_id, min(line) AS session_line
    FROM events
    WHERE event_type IN ('tool_call', 'skill_call', 'inference')
    GROUP BY ALL
)
SELECT
    trace_path,
    kind,
    turn,
    CASE WHEN c.calls IS NULL THEN d.decision END AS decision,
    coalesce(c.calls, []) AS calls,
    session_id,
    s.session_line
FROM calls AS c
FULL OUTER JOIN decisions AS d USING (trace_path, session_id, kind, turn)
JOIN session_lines AS s USING (trace_path, session_id)
