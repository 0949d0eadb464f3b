-- The lines of the session files of other agents' formats, numbered, for their readers.
--
-- DuckDB reads the files named by the variable `source_paths`, whose formats the variable
-- `source_files` gives (a list of {trace_path, format}), and splits them into lines as
-- every reader does (queries/functions/file_lines.sql): blank lines take no row but keep
-- their number; a file that is not UTF-8 gets one row at line 0.
-- Each reader of queries/formats/ parses the lines of its own format.
-- @column trace_path  VARCHAR  The session file, as given.
-- @column format      VARCHAR  Its format (`claude_code`, `codex`, `openhands`, `otel`).
-- @column line        BIGINT   1-based line number counting blank lines; 0 for a file that is not UTF-8.
-- @column raw         VARCHAR  The line's text, white space around it left out; NULL for a file that is not UTF-8.
-- @column final_piece BOOLEAN  The last piece of a file with no newline at its end (maybe torn).
WITH asked AS (
    SELECT f.trace_path, f.format
    FROM unnest(getvariable('source_files')) AS u(f)
)
SELECT
    l.trace_path,
    a.format,
    CASE WHEN l.not_utf8 THEN 0 ELSE l.line END AS line,
    l.raw,
    l.final_piece
FROM file_lines(getvariable('source_paths')) AS l
JOIN asked AS a ON a.trace_path = l.trace_path
