-- One row per trace of events loaded ready-made (the `events` dataset of `mur-trace export`,
-- handed over as Arrow by `load.load_events`), with the columns of queries/load/traces.sql.
--
-- Such events are what loading kept: the readable events of traces that could be analysed,
-- every one with a session id (fill_session_ids.sql gave the trace's to the lines that named
-- none). So every trace here can be analysed, and its session id is found again as
-- traces.sql chose it: its first `session_start`'s, else its first event's (a line that
-- named none carries the trace's). Whether a torn last line was left out is not known from
-- the events: no warning.
-- @column trace_path   VARCHAR    The trace file, as it was loaded.
-- @column ordinal      BIGINT     Position of the trace in trace path order.
-- @column format       VARCHAR    NULL: the events do not say which reader made them.
-- @column session_id   VARCHAR    The trace's session id (see above).
-- @column events       BIGINT     Number of events.
-- @column error_code   VARCHAR    Always NULL: every trace can be analysed.
-- @column error        VARCHAR    Always NULL.
-- @column warning      VARCHAR    Always NULL.
SELECT
    trace_path,
    row_number() OVER (ORDER BY trace_path) AS ordinal,
    NULL::VARCHAR AS format,
    coalesce(
        arg_min(session_id, line) FILTER (WHERE event_type = 'session_start'),
        arg_min(session_id, line)
    ) AS session_id,
    count(*) AS events,
    NULL::VARCHAR AS error_code,
    NULL::VARCHAR AS error,
    NULL::VARCHAR AS warning
FROM events
GROUP BY trace_path
ORDER BY trace_path
