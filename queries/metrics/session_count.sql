-- How many sessions the analysed traces hold, counted as `session_metrics` counts them
-- (queries/metrics/session.sql): a trace file is one session, a file of several sessions
-- (an OpenHands output) one for each session its lines belong to (events/file_sessions.sql,
-- as events/sessions.sql counts them). Only that column of the events is read, not the
-- per-session metrics: `redundant` and `loops` say how many sessions they analysed.
-- @column sessions BIGINT  Sessions analysed.
SELECT (count(*) + coalesce(sum(greatest(f.sessions, 1) - 1), 0))::BIGINT AS sessions
FROM traces AS t
LEFT JOIN file_sessions AS f USING (trace_path)
WHERE t.error_code IS NULL
