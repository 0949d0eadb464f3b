-- One row per finished task of a persistent capsule: the task_end, with its task_start.
--
-- A task_end is matched with the latest earlier task_start of the same task_id, which it
-- uses up: one with no such start since the task's last task_end (a task_end written
-- twice) is left out, as `mur trace` does (it removes the start it matched). `reopen_count` is 0 when the line omits it.
-- @column trace_path    VARCHAR  Trace file.
-- @column line          BIGINT   Line of the task_end.
-- @column task_id       VARCHAR  Task id.
-- @column context_id    VARCHAR  From task_start.
-- @column source        VARCHAR  From task_start.
-- @column exit_status   VARCHAR  From task_end.
-- @column duration_ms   BIGINT   From task_end.
-- @column turns         BIGINT   From task_end.
-- @column input_tokens  BIGINT   From task_end.
-- @column output_tokens BIGINT   From task_end.
-- @column tool_calls    BIGINT   From task_end.
-- @column shell_calls   BIGINT   From task_end.
-- @column reopen_count  BIGINT   From task_end.
SELECT
    e.trace_path,
    e.line,
    e.task_id,
    arg_max(s.context_id, s.line) AS context_id,
    arg_max(s.source, s.line) AS source,
    e.exit_status,
    e.duration_ms,
    e.turns,
    e.input_tokens,
    e.output_tokens,
    e.tool_calls,
    e.shell_calls,
    coalesce(e.reopen_count, 0) AS reopen_count
FROM (
    SELECT *, lag(line) OVER (PARTITION BY trace_path, task_id ORDER BY line) AS ended_before
    FROM events
    WHERE event_type = 'task_end'
) AS e
JOIN events AS s
    ON s.trace_path = e.trace_path
    AND s.task_id = e.task_id
    AND s.event_type = 'task_start'
    AND s.line < e.line
    AND s.line > coalesce(e.ended_before, 0)
GROUP BY ALL
