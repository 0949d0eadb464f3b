-- rule context_reset: compactions, new tasks and new attempts empty the model's context.
--
-- After a `compaction` (the context was summarised), a `task_start` (a new task of a
-- persistent capsule) or a `session_start` (a new attempt, after a reopen), the model no
-- longer holds what it read before, so reading it again is not redundant. Example: read
-- `src/a.rs`, compaction, read `src/a.rs`: the second read is needed (the reference flags it).
-- A `context_switch` (another agent's log: the lines after it belong to another agent's
-- context, an inline subagent, or back) counts as a reset too: neither context holds what
-- the other read.
-- Switched off, a session of a file of several (an OpenHands output's instances, an
-- OpenTelemetry file's sessions) still starts from nothing: another session, not another
-- attempt, whose model never held what the one before it read.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the reset.
-- @column reason     VARCHAR  `compaction`, `task_start`, `session_start` or `context_switch`.
SELECT trace_path, line, event_type AS reason
FROM events
WHERE event_type IN ('compaction', 'task_start', 'session_start', 'context_switch')
    AND (SELECT enabled FROM context_rules WHERE name = 'context_reset')
UNION ALL
SELECT trace_path, min(line), 'session_start'
FROM events
WHERE file_session IS NOT NULL
    AND NOT (SELECT enabled FROM context_rules WHERE name = 'context_reset')
GROUP BY trace_path, file_session
