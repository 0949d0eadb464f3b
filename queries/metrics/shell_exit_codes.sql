-- Shell commands per exit code and session: per file, and per session in a file of several
-- (queries/events/sessions.sql: `sessions_in_file`, an OpenHands output), as `report` lists
-- them (`show` adds up a file's: queries/metrics/file_exit_codes.sql).
-- @column trace_path VARCHAR  Trace file.
-- @column exit_code  BIGINT   Exit code of the command.
-- @column commands   BIGINT   Commands that exited with it.
-- @column session_id VARCHAR  Session of the commands (the trace's, in a file of one session).
SELECT
    e.trace_path,
    e.exit_code,
    count(*) AS commands,
    CASE WHEN s.sessions_in_file > 1 THEN e.session_id ELSE s.session_id END AS session_id
FROM events AS e
JOIN sessions AS s USING (trace_path)
WHERE e.event_type = 'shell'
GROUP BY ALL
