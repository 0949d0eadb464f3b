-- The columns an export's datasets are partitioned by, one row per trace: the same for its
-- events and its findings (queries/export/events.sql, findings.sql).
--
-- `date` is the UTC day the session was created (from its UUID v7 id, else its first
-- timestamp: another agent's id says no time); `capsule` is the session's capsule name.
-- Both are NULL when unknown, and an empty capsule name too: its hive partition would be
-- `capsule=`, which Spark refuses to read (EMPTY_PARTITION_COLUMN_VALUE; Spark writes an
-- empty value as NULL itself), so every layout of an export holds the same values.
-- @column trace_path VARCHAR Trace file.
-- @column date       DATE     Day the session was created (UTC).
-- @column capsule    VARCHAR  Capsule that ran the session (NULL when unknown or empty).
SELECT
    trace_path,
    make_timestamp(coalesce(created_ms, first_ms) * 1000)::DATE AS date,
    nullif(capsule_name, '') AS capsule
FROM sessions
