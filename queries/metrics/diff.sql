-- The metric table of `mur trace diff`: run A (`$before`) against run B (`$after`), with a
-- `redundant_calls` row `mur trace` lacks.
--
-- Lower is better for turns, tokens, latencies, calls and redundant calls; higher for the
-- tool success rate. `better` is 'A', 'B', '=' (equal; for averages, within 0.05), or NULL
-- when a side has no value or the row is not compared (compaction, exit status).
-- Latencies are compared in whole milliseconds. A token average is 0 for a session of no
-- turn, as in `mur trace`, and none when its tokens are not known (another agent's log).
-- @param before  VARCHAR  Trace path of run A.
-- @param after   VARCHAR  Trace path of run B.
-- @column position        INTEGER  Row order.
-- @column metric          VARCHAR  Metric id.
-- @column kind            VARCHAR  count | ms | avg | pct | text: how it is shown and compared.
-- @column a               DOUBLE   Run A's value (NULL for text rows or when it has none).
-- @column b               DOUBLE   Run B's value.
-- @column a_text          VARCHAR  Run A's value of a text row.
-- @column b_text          VARCHAR  Run B's value of a text row.
-- @column delta           DOUBLE   b - a.
-- @column lower_is_better BOOLEAN  Which direction is better.
-- @column better          VARCHAR  'A', 'B', '=' or NULL.
WITH a AS (SELECT * FROM file_metrics WHERE trace_path = $before),
b AS (SELECT * FROM file_metrics WHERE trace_path = $after),
rows AS (
    SELECT unnest([
        {position: 1, metric: 'turns', kind: 'count', lower: true,
         a: a.total_turns::DOUBLE, b: b.total_turns::DOUBLE, a_text: NULL, b_text: NULL},
        {position: 2, metric: 'duration_ms', kind: 'ms', lower: true,
         a: a.duration_ms, b: b.duration_ms, a_text: NULL, b_text: NULL},
        {position: 3, metric: 'input_tokens', kind: 'count', lower: true,
         a: a.total_input_tokens, b: b.total_input_tokens, a_text: NULL, b_text: NULL},
        {position: 4, metric: 'output_tokens', kind: 'count', lower: true,
         a: a.total_output_tokens, b: b.total_output_tokens, a_text: NULL, b_text: NULL},
        -- 0 with no turn, as `mur trace` prints it; none when the tokens are not known
        {position: 5, metric: 'input_per_turn', kind: 'avg', lower: true,
         a: CASE WHEN a.total_input_tokens IS NOT NULL THEN coalesce(a.avg_input_per_turn, 0) END,
         b: CASE WHEN b.total_input_tokens IS NOT NULL THEN coalesce(b.avg_input_per_turn, 0) END,
         a_text: NULL, b_text: NULL},
        {position: 6, metric: 'output_per_turn', kind: 'avg', lower: true,
         a: CASE WHEN a.total_output_tokens IS NOT NULL
             THEN coalesce(a.avg_output_per_turn, 0) END,
         b: CASE WHEN b.total_output_tokens IS NOT NULL
             THEN coalesce(b.avg_output_per_turn, 0) END,
         a_text: NULL, b_text: NULL},
        {position: 7, metric: 'tool_calls', kind: 'count', lower: true,
         a: a.total_tool_calls, b: b.total_tool_calls, a_text: NULL, b_text: NULL},
        {position: 8, metric: 'tool_success_pct', kind: 'pct', lower: false,
         a: a.tool_success_pct, b: b.tool_success_pct, a_text: NULL, b_text: NULL},
        {position: 9, metric: 'avg_tool_ms', kind: 'ms', lower: true,
         a: trunc(a.avg_tool_ms), b: trunc(b.avg_tool_ms), a_text: NULL, b_text: NULL},
        {position: 10, metric: 'redundant_calls', kind: 'count', lower: true,
         a: a.redundant_calls, b: b.redundant_calls, a_text: NULL, b_text: NULL},
        {position: 11, metric: 'skill_calls', kind: 'count', lower: true,
         a: a.skill_calls, b: b.skill_calls, a_text: NULL, b_text: NULL},
        {position: 12, metric: 'shell_calls', kind: 'count', lower: true,
         a: a.total_shell_calls, b: b.total_shell_calls, a_text: NULL, b_text: NULL},
        {position: 13, metric: 'avg_shell_ms', kind: 'ms', lower: true,
         a: trunc(a.avg_shell_ms), b: trunc(b.avg_shell_ms), a_text: NULL, b_text: NULL},
        {position: 14, metric: 'compaction', kind: 'text', lower: NULL, a: NULL, b: NULL,
         a_text: CASE WHEN a.compactions > 0
             THEN coalesce('turn ' || a.compaction_turn, 'turn unknown') ELSE 'none' END,
         b_text: CASE WHEN b.compactions > 0
             THEN coalesce('turn ' || b.compaction_turn, 'turn unknown') ELSE 'none' END},
        {position: 15, metric: 'exit_status', kind: 'text', lower: NULL, a: NULL, b: NULL,
         a_text: a.exit_status, b_text: b.exit_status}
    ]) AS r
    FROM a, b
)
SELECT
    r.position,
    r.metric,
    r.kind,
    r.a,
    r.b,
    r.a_text,
    r.b_text,
    r.b - r.a AS delta,
    r.lower AS lower_is_better,
    CASE
        WHEN r.kind = 'text' OR r.a IS NULL OR r.b IS NULL THEN NULL
        WHEN r.a = r.b OR (r.kind IN ('avg', 'pct') AND abs(r.b - r.a) < 0.05) THEN '='
        WHEN (r.b < r.a) = r.lower THEN 'B'
        ELSE 'A'
    END AS better
FROM rows
ORDER BY r.position
