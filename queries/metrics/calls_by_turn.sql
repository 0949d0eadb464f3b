-- Tool and skill calls grouped by turn, for the listings of `mur trace show`.
--
-- One row per (trace, session, kind, turn): a file holds one session, but for an OpenHands
-- output, whose instances (sessions) each count their turns from 0 (queries/events/
-- sessions.sql: `sessions_in_file`). For tool calls, turns with an inference but no call are
-- listed too, with that inference's decision (the last one at that turn, as `mur trace`
-- keeps it) and no calls. Calls keep their file order.
-- @column trace_path VARCHAR   Trace file.
-- @column kind       VARCHAR   `tool_call` or `skill_call`.
-- @column turn       BIGINT    Turn (a missing turn counts as 0).
-- @column decision   VARCHAR   Decision of the turn's inference, for tool-call turns with no call.
-- @column calls      STRUCT[]  {name, duration_ms, status, input} per call, in line order.
-- @column session_id   VARCHAR  Session of the turn (the trace's, in a file of one session).
-- @column session_line BIGINT   First line of that session in its file: the sessions of a file in order.
WITH turns AS (
    -- the session each call and inference counts for: its own in a file of several
    SELECT
        e.trace_path,
        CASE WHEN s.sessions_in_file > 1 THEN e.session_id ELSE s.session_id END AS session_id,
        e.line,
        e.event_type,
        e.turn,
        e.tool_name,
        e.skill_name,
        e.duration_ms,
        e.status,
        e.input,
        e.decision
    FROM events AS e
    JOIN sessions AS s USING (trace_path)
    WHERE e.event_type IN ('tool_call', 'skill_call', 'inference')
),
calls AS (
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
    FROM turns
    WHERE event_type IN ('tool_call', 'skill_call')
    GROUP BY ALL
),
decisions AS (
    SELECT trace_path, session_id, 'tool_call' AS kind, turn, arg_max(decision, line) AS decision
    FROM turns
    WHERE event_type = 'inference' AND turn IS NOT NULL
    GROUP BY ALL
),
session_lines AS (
    SELECT trace_path, session_id, min(line) AS session_line
    FROM turns
    GROUP BY ALL
)
SELECT
    coalesce(c.trace_path, d.trace_path) AS trace_path,
    coalesce(c.kind, d.kind) AS kind,
    coalesce(c.turn, d.turn) AS turn,
    CASE WHEN c.calls IS NULL THEN d.decision END AS decision,
    coalesce(c.calls, []) AS calls,
    l.session_id,
    l.session_line
-- joined on the session as a value (IS NOT DISTINCT FROM): events handed in may name none
FROM calls AS c
FULL OUTER JOIN decisions AS d
    ON d.trace_path = c.trace_path AND d.session_id IS NOT DISTINCT FROM c.session_id
    AND d.kind = c.kind AND d.turn = c.turn
JOIN session_lines AS l
    ON l.trace_path = coalesce(c.trace_path, d.trace_path)
    AND l.session_id IS NOT DISTINCT FROM coalesce(c.session_id, d.session_id)
