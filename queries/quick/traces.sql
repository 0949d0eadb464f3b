-- One row per trace of the variable `quick_files`: whether reading it quickly
-- (queries/quick/lines.sql) stands for loading it whole.
--
-- It does when every line of it is `readable` and it has one at least: loading would find
-- no error and no warning in it (no bad line, no torn last line, text that is UTF-8), and
-- its tool calls are the ones queries/quick/reference.sql reads. Any other trace, and one
-- whose tool calls do not all name their session (filled from the trace by loading), is
-- loaded whole by queries/load/lines.sql, which says what is wrong with it.
-- @column file_index BIGINT   Position of the trace in `quick_files`, from 0.
-- @column trace_path VARCHAR  The trace file, as given.
-- @column events     BIGINT   Number of events (lines that are not blank).
-- @column quick      BOOLEAN  True when the quick reading stands for loading it whole.
SELECT
    p.ordinal - 1 AS file_index,
    p.trace_path,
    coalesce(l.events, 0) AS events,
    coalesce(l.readable, false) AS quick
FROM unnest(getvariable('quick_files')) WITH ORDINALITY AS p(trace_path, ordinal)
LEFT JOIN (
    SELECT
        file_index,
        count(*) AS events,
        bool_and(readable AND coalesce(named_session, true)) AS readable
    FROM quick_lines
    GROUP BY file_index
) AS l ON l.file_index = p.ordinal - 1
