-- Shell commands per exit code and session.
-- @column trace_path VARCHAR  Trace file.
-- @column exit_code  BIGINT   Exit code of the command.
-- @column commands   BIGINT   Commands that exited with it.
SELECT trace_path, exit_code, count(*) AS commands
FROM events
WHERE event_type = 'shell'
GROUP BY ALL
