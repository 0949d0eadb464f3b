-- elapsed(start, finish): the time from `start` to `finish` (in their unit), or NULL when
-- `finish` comes first: another agent's log can stamp a result before its call (clocks
-- of two processes, a clock set back), and a negative duration is no duration. Murmur
-- traces declare their durations, which loading checks are not negative.
-- @param start   BIGINT  When it began.
-- @param finish  BIGINT  When it ended.
-- @column result BIGINT  finish - start, NULL when negative or unknown.
CASE WHEN finish >= start THEN finish - start END
