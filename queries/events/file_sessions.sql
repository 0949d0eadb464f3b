-- The files whose lines say which of the file's sessions they belong to (`file_session`:
-- the formats whose files hold several, an OpenHands output, an OpenTelemetry file), and
-- how many sessions each holds. A Murmur trace is never here: it is one session.
-- @column trace_path VARCHAR  The file.
-- @column sessions   BIGINT   The sessions its lines belong to.
SELECT trace_path, count(DISTINCT file_session) AS sessions
FROM events
WHERE file_session IS NOT NULL
GROUP BY trace_path
