-- Per-task statistics over the tasks of multi-task sessions (more than one finished task),
-- as `mur trace report` prints them; no rows when every session ran a single task.
-- @column position INTEGER  Order of the metric.
-- @column metric   VARCHAR  task_turns, task_input_tokens, task_output_tokens, task_duration_ms.
-- @column tasks    BIGINT   Tasks counted.
-- @column mean     DOUBLE   Mean.
-- @column stddev   DOUBLE   Population standard deviation.
-- @column min      DOUBLE   Smallest value.
-- @column max      DOUBLE   Largest value.
WITH multi AS (
    SELECT t.*
    FROM tasks AS t
    WHERE t.trace_path IN (SELECT trace_path FROM session_metrics WHERE complete)
    QUALIFY count(*) OVER (PARTITION BY t.trace_path) > 1
),
values AS (
    SELECT unnest([
        {position: 1, metric: 'task_turns', value: turns::DOUBLE},
        {position: 2, metric: 'task_input_tokens', value: input_tokens::DOUBLE},
        {position: 3, metric: 'task_output_tokens', value: output_tokens::DOUBLE},
        {position: 4, metric: 'task_duration_ms', value: duration_ms::DOUBLE}
    ]) AS v
    FROM multi
)
SELECT
    v.position,
    v.metric,
    count(*) AS tasks,
    -- over the values in order: summed in parallel, in whatever order the threads meet,
    -- their last digits moved from run to run
    list_avg(list(v.value ORDER BY v.value)) AS mean,
    list_aggregate(list(v.value ORDER BY v.value), 'stddev_pop') AS stddev,
    min(v.value) AS min,
    max(v.value) AS max
FROM values
GROUP BY ALL
ORDER BY v.position
