-- The events of the traces that can be analysed, read through the files in one pass.
--
-- Loading for one pass over many traces keeps `lines` a view over the files and this a
-- view over it: the good lines of the good traces, each with a session id (the trace's
-- when the line names none). Stored loads reach the same table by deleting and filling in
-- place (queries/load/drop_unreadable.sql, fill_session_ids.sql).
-- @column trace_path VARCHAR  The trace file.
-- @column line       BIGINT   1-based line number counting blank lines.
-- @column session_id VARCHAR  The line's session id, else its trace's.
SELECT l.* EXCLUDE (problem) REPLACE (coalesce(l.session_id, t.session_id) AS session_id)
FROM lines AS l
JOIN traces AS t USING (trace_path)
WHERE t.error_code IS NULL AND l.problem IS NULL
