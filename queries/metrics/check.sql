-- Sessions over the thresholds of `mur-trace check`: a CI gate for agent behaviour.
--
-- One row per session that exceeds at least one threshold; a NULL threshold is not
-- checked; zero rows means every session passed. The rate is redundant calls per tool call
-- (from the calls in the trace).
-- @param max_redundant       BIGINT  Most redundant calls a session may make.
-- @param max_rate            DOUBLE  Highest share of redundant tool calls (0..1).
-- @param max_context_tokens  BIGINT  Most tokens re-sent because of redundant calls.
-- @column session_id        VARCHAR    Session.
-- @column trace_path        VARCHAR    Trace file.
-- @column redundant_calls   BIGINT     Findings of the active policy.
-- @column tool_calls        BIGINT     Tool calls in the trace.
-- @column redundant_rate    DOUBLE     redundant_calls / tool_calls.
-- @column context_tokens    BIGINT     Tokens re-sent because of the findings.
-- @column violations        VARCHAR[]  Which thresholds, e.g. `redundant calls 5 > 3`.
WITH measured AS (
    SELECT
        session_id,
        trace_path,
        redundant_calls,
        tool_ok + tool_error AS tool_calls,
        redundant_calls / nullif(tool_ok + tool_error, 0) AS redundant_rate,
        redundant_context_tokens AS context_tokens
    FROM session_metrics
),
judged AS (
    SELECT
        *,
        list_filter([
            CASE WHEN redundant_calls > $max_redundant
                THEN 'redundant calls ' || redundant_calls || ' > ' || $max_redundant END,
            -- three decimals, more when three would print it no higher than the threshold
            -- (`redundant rate 0.333 > 0.333` was 1/3 against 0.333)
            CASE WHEN redundant_rate > $max_rate
                THEN 'redundant rate ' || CASE
                    WHEN round(redundant_rate, 3) > $max_rate THEN round(redundant_rate, 3)
                    WHEN round(redundant_rate, 6) > $max_rate THEN round(redundant_rate, 6)
                    ELSE redundant_rate
                END || ' > ' || $max_rate END,
            CASE WHEN context_tokens > $max_context_tokens
                THEN 'context tokens ' || context_tokens || ' > ' || $max_context_tokens END
        ], lambda v: v IS NOT NULL) AS violations
    FROM measured
)
SELECT * FROM judged
WHERE len(violations) > 0
ORDER BY trace_path, session_id
