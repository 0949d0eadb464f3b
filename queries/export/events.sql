-- The events, with the columns a Parquet dataset is partitioned by.
--
-- `date` is the UTC day the session was created (from its UUID v7 id, else its first
-- timestamp); `capsule` is the session's capsule name. Both are NULL when unknown.
-- @column date    DATE     Day the session was created (UTC).
-- @column capsule VARCHAR  Capsule that ran the session.
SELECT
    e.*,
    coalesce(
        make_timestamp(s.created_ms * 1000),
        make_timestamp(t.first_ms * 1000)
    )::DATE AS date,
    s.capsule_name AS capsule
FROM events AS e
LEFT JOIN sessions AS s USING (trace_path)
-- the first timestamp of each trace joined in, not a window over the events: a window
-- holds every event in memory before the first row comes out; this streams them
LEFT JOIN (
    SELECT trace_path, min(timestamp) AS first_ms FROM events GROUP BY trace_path
) AS t USING (trace_path)
