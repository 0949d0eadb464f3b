-- The findings of the active policy (`redundant_calls`), with the partition columns of
-- their events (queries/export/partitions.sql).
-- @column date    DATE     Day the session was created (UTC).
-- @column capsule VARCHAR  Capsule that ran the session.
SELECT f.*, p.date, p.capsule
FROM redundant_calls AS f
LEFT JOIN export_partitions AS p USING (trace_path)
