-- One row per trace file asked for: its session id and whether it can be analysed.
--
-- The session id of a trace is the one its first `session_start` names, else the first
-- one any line names, else the name of the directory that holds the file.
-- A trace that cannot be analysed carries the SPEC error code and a one-line message
-- naming the first bad line (`file:line`); its events are left out of `events`.
-- @column trace_path   VARCHAR    The trace file, as given.
-- @column ordinal      BIGINT     Position of the file in the request.
-- @column session_id   VARCHAR    The trace's session id (see above).
-- @column events       BIGINT     Number of readable events.
-- @column error_code   VARCHAR    NULL when the trace can be analysed, else E-TRC-001 / E-IO-003.
-- @column error        VARCHAR    What is wrong, naming file:line; NULL when fine.
WITH asked AS (
    SELECT p.trace_path, p.ordinal
    FROM unnest(getvariable('trace_files')) WITH ORDINALITY AS p(trace_path, ordinal)
),
per_trace AS (
    SELECT
        trace_path,
        count(*) FILTER (WHERE problem IS NULL) AS events,
        arg_min(session_id, line) FILTER (
            WHERE event_type = 'session_start' AND session_id IS NOT NULL
        ) AS start_session_id,
        arg_min(session_id, line) FILTER (WHERE session_id IS NOT NULL) AS any_session_id,
        min(line) FILTER (WHERE problem IS NOT NULL) AS problem_line,
        arg_min(problem, line) FILTER (WHERE problem IS NOT NULL) AS problem
    FROM lines
    GROUP BY trace_path
)
SELECT
    a.trace_path,
    a.ordinal,
    coalesce(
        p.start_session_id,
        p.any_session_id,
        regexp_extract(a.trace_path, '([^/\\]+)[/\\][^/\\]*$', 1)
    ) AS session_id,
    coalesce(p.events, 0) AS events,
    CASE
        WHEN p.problem_line = 0 THEN 'E-IO-003'
        WHEN p.problem IS NOT NULL OR coalesce(p.events, 0) = 0 THEN 'E-TRC-001'
    END AS error_code,
    CASE
        WHEN p.problem_line = 0 THEN a.trace_path || ': ' || p.problem
        WHEN p.problem IS NOT NULL THEN a.trace_path || ':' || p.problem_line || ': ' || p.problem
        WHEN coalesce(p.events, 0) = 0 THEN a.trace_path || ': trace file is empty'
    END AS error
FROM asked AS a
LEFT JOIN per_trace AS p USING (trace_path)
ORDER BY a.ordinal
