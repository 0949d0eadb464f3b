-- rule failed_calls: a failed call observed nothing.
--
-- A call whose `status` is not `ok` (a shell command that exited non-zero) is never the
-- prior of a redundant read and is never itself flagged as one: re-running it is a retry,
-- which `loops` reports. It still invalidates what it addressed when its effect is not a
-- read: a failed write may have written half a file. Example: `read a` fails, `read a`
-- succeeds: the second read is not redundant (the reference flags it).
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the call.
-- @column observed   BOOLEAN  The call can count as having seen its resource.
SELECT
    trace_path,
    line,
    status = 'ok' OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls')
        AS observed
FROM tool_calls
