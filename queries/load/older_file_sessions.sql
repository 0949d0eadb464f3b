-- Events of an export made before `file_session` existed (loaded with it NULL): a file
-- whose session_starts name several sessions (another agent's output, an OpenHands
-- instance a line) takes each line's session id as its session, as such events were
-- counted then. (A Murmur trace whose session_starts name several ids, which no runtime
-- writes, is then several sessions too: the export does not say its format.)
-- @column file_session VARCHAR  (a statement: no rows)
UPDATE events SET file_session = session_id
WHERE trace_path IN (
    SELECT trace_path
    FROM events
    WHERE event_type = 'session_start'
    GROUP BY trace_path
    HAVING count(DISTINCT session_id) > 1
)
