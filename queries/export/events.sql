-- The events, with the columns a Parquet dataset is partitioned by
-- (queries/export/partitions.sql).
-- @column date    DATE     Day the session was created (UTC).
-- @column capsule VARCHAR  Capsule that ran the session.
SELECT e.*, p.date, p.capsule
FROM events AS e
LEFT JOIN export_partitions AS p USING (trace_path)
