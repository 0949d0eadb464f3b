-- rule failed_calls: a failed call observed nothing.
--
-- A call whose `status` is not `ok` (a shell command that exited non-zero) is never the
-- prior of a redundant read and is never itself flagged as one: re-running it is a retry,
-- which `loops` reports. A failed call that declared a change still invalidates what it
-- addressed (a failed write may have written half a file); one that declared nothing (an
-- editor declares its effect only when it succeeded; a `replace` whose text was not found
-- wrote nothing) changed nothing. Example: `read a` fails, `read a` succeeds: the second
-- read is not redundant (the reference flags it); read `a`, a replace in `a` fails, read
-- `a`: redundant.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the call.
-- @column observed   BOOLEAN  The call can count as having seen its resource.
SELECT
    trace_path,
    line,
    status = 'ok' OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls')
        AS observed
FROM tool_calls
