-- Mean, population standard deviation, min and max of each metric across the complete
-- sessions, as `mur trace report` prints them, plus the redundant calls of the active policy
-- and what they cost (tokens of their results, tokens re-sent).
--
-- A metric with no value in any session (tool success when no session made a tool call)
-- has no row.
-- @column position INTEGER  Order of the metric in the report.
-- @column metric   VARCHAR  turns, duration_ms, input_tokens, output_tokens, tool_calls, tool_success_pct, shell_calls, redundant_calls, redundant_tokens, redundant_context_tokens.
-- @column sessions BIGINT   Sessions with a value.
-- @column mean     DOUBLE   Mean.
-- @column stddev   DOUBLE   Population standard deviation.
-- @column min      DOUBLE   Smallest value.
-- @column max      DOUBLE   Largest value.
WITH values AS (
    SELECT unnest([
        {position: 1, metric: 'turns', value: total_turns::DOUBLE},
        {position: 2, metric: 'duration_ms', value: duration_ms::DOUBLE},
        {position: 3, metric: 'input_tokens', value: total_input_tokens::DOUBLE},
        {position: 4, metric: 'output_tokens', value: total_output_tokens::DOUBLE},
        {position: 5, metric: 'tool_calls', value: total_tool_calls::DOUBLE},
        {position: 6, metric: 'tool_success_pct', value: tool_success_pct},
        {position: 7, metric: 'shell_calls', value: total_shell_calls::DOUBLE},
        {position: 8, metric: 'redundant_calls', value: redundant_calls::DOUBLE},
        {position: 9, metric: 'redundant_tokens', value: redundant_tokens::DOUBLE},
        {position: 10, metric: 'redundant_context_tokens',
         value: redundant_context_tokens::DOUBLE}
    ]) AS v
    FROM session_metrics
    WHERE complete
)
SELECT
    v.position,
    v.metric,
    count(v.value) AS sessions,
    -- over the values in order: summed in parallel, in whatever order the threads meet,
    -- their last digits moved from run to run
    list_avg(list(v.value ORDER BY v.value)) AS mean,
    list_aggregate(list(v.value ORDER BY v.value), 'stddev_pop') AS stddev,
    min(v.value) AS min,
    max(v.value) AS max
FROM values
WHERE v.value IS NOT NULL
GROUP BY ALL
ORDER BY v.position
