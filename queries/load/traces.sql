-- One row per trace file asked for: its session id and whether it can be analysed.
--
-- The session id of a trace is the one its first `session_start` names, else the first
-- one any line names, else the name of the directory that holds the file (a relative path
-- is read from the working directory, the variable `cwd`).
-- A trace that cannot be analysed carries the SPEC error code and a one-line message
-- naming the first bad line (`file:line`); its events are left out of `events`. A last line
-- that is not JSON and has no newline after it was cut short by a killed session: it is
-- left out with a warning and the lines before it are analysed. Files that could not be
-- opened come in the variable `file_errors` (position in `trace_files`, code, message).
-- @column trace_path   VARCHAR    The trace file, as given.
-- @column ordinal      BIGINT     Position of the file in the request.
-- @column format       VARCHAR    The reader of its format (`murmur`, `claude_code`, `codex`, `openhands`, `otel`;
--                                 variable `trace_formats`, and `trace_format_names` as `--format-in`
--                                 names them); NULL for a file that could not be opened.
-- @column session_id   VARCHAR    The trace's session id (see above).
-- @column events       BIGINT     Number of readable events.
-- @column error_code   VARCHAR    NULL when the trace can be analysed, else E-TRC-001 / E-IO-003.
-- @column error        VARCHAR    What is wrong, naming file:line; NULL when fine.
-- @column warning      VARCHAR    A torn last line (left out, the rest analysed), naming file:line.
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
        arg_min(problem, line) FILTER (WHERE problem IS NOT NULL) AS problem,
        max(line) FILTER (WHERE torn) AS torn_line
    FROM lines
    GROUP BY trace_path
),
judged AS (
    SELECT
        *,
        -- the first bad line is the last piece of a file with no newline at its end
        coalesce(problem_line = torn_line, false) AS torn
    FROM per_trace
)
SELECT
    a.trace_path,
    a.ordinal,
    getvariable('trace_formats')[a.ordinal] AS format,
    coalesce(
        p.start_session_id,
        p.any_session_id,
        -- the directory's own name: a path relative to the working directory (`t.jsonl`,
        -- `../t.jsonl`) is read from there (before, `t.jsonl` got the empty id)
        regexp_extract(
            normalise_path(
                CASE
                    WHEN starts_with(a.trace_path, '/') OR getvariable('cwd') IS NULL
                        THEN a.trace_path
                    ELSE getvariable('cwd') || '/' || a.trace_path
                END
            ),
            '([^/\\]+)[/\\][^/\\]*$',
            1
        )
    ) AS session_id,
    coalesce(p.events, 0) AS events,
    CASE
        WHEN f.code IS NOT NULL THEN f.code
        WHEN p.problem_line = 0 THEN 'E-IO-003'
        WHEN (p.problem IS NOT NULL AND NOT p.torn) OR coalesce(p.events, 0) = 0 THEN 'E-TRC-001'
    END AS error_code,
    CASE
        WHEN f.code IS NOT NULL THEN f.message
        WHEN p.problem_line = 0 THEN a.trace_path || ': ' || p.problem
        WHEN p.torn AND coalesce(p.events, 0) = 0
            THEN a.trace_path || ':' || p.problem_line || ': last line is incomplete (torn write)'
                || ' and no event before it'
        WHEN p.problem IS NOT NULL AND NOT p.torn
            THEN a.trace_path || ':' || p.problem_line || ': ' || p.problem
        WHEN coalesce(p.events, 0) = 0
            AND getvariable('trace_formats')[a.ordinal] IS DISTINCT FROM 'murmur'
            THEN a.trace_path || ': no ' || getvariable('trace_format_names')[a.ordinal]
                || ' event in it (empty, or not a log of that agent)'
        WHEN coalesce(p.events, 0) = 0 THEN a.trace_path || ': trace file is empty'
    END AS error,
    CASE WHEN p.torn AND p.events > 0 THEN
        a.trace_path || ':' || p.problem_line
            || ': last line is incomplete (torn write); the lines before it are analysed'
    END AS warning
FROM asked AS a
LEFT JOIN (
    SELECT e.ordinal, e.code, e.message FROM unnest(getvariable('file_errors')) AS u(e)
) AS f USING (ordinal)
-- a file not opened has no lines: those of its name's text are another file's
LEFT JOIN judged AS p ON p.trace_path = a.trace_path AND f.code IS NULL
ORDER BY a.ordinal
