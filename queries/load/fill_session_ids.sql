-- Gives every stored line that names no session its trace's session id.
--
-- The trace's id is its first session_start's, else the first any line names, else the
-- name of its directory (queries/load/traces.sql). Older, hand-trimmed traces need this.
-- @column session_id VARCHAR  (a statement: no rows)
UPDATE lines SET session_id = t.session_id
FROM traces AS t
WHERE lines.session_id IS NULL AND lines.trace_path = t.trace_path AND t.error_code IS NULL
