-- The findings of the active policy (`redundant_calls`), with the partition columns of
-- queries/export/events.sql.
-- @column date    DATE     Day the session was created (UTC).
-- @column capsule VARCHAR  Capsule that ran the session.
SELECT
    f.*,
    make_timestamp(s.created_ms * 1000)::DATE AS date,
    s.capsule_name AS capsule
FROM redundant_calls AS f
LEFT JOIN sessions AS s USING (trace_path)
