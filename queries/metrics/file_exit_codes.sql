-- Shell commands per exit code of each trace file, its sessions together (queries/metrics/
-- shell_exit_codes.sql counts them per session too): what `show` lists of one file.
-- @column trace_path VARCHAR  Trace file.
-- @column exit_code  BIGINT   Exit code of the command.
-- @column commands   BIGINT   Commands that exited with it.
SELECT trace_path, exit_code, sum(commands)::BIGINT AS commands
FROM shell_exit_codes
GROUP BY ALL
