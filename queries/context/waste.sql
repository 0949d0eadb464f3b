-- What each tool call cost: bytes, time, tokens, and the tokens re-sent after it.
--
-- Tokens come from the trace where it can tell: the input tokens of the inference after a
-- call, less the input and output tokens of the inference that made it, is what the
-- results of that turn added to the context; calls of one turn share it by output bytes.
-- Where the trace cannot tell (no later inference, a reset in between, a count that does
-- not grow), tokens are estimated at 4 bytes per token (`token_source` = `estimate`).
-- The context cost is those tokens times the later inference turns of the same context
-- (up to the next compaction, task, attempt or switch to another agent's context), each of
-- which re-sent them.
-- @column trace_path     VARCHAR  Trace file.
-- @column line           BIGINT   Line of the tool call.
-- @column output_bytes   BIGINT   Bytes the call returned.
-- @column duration_ms    BIGINT   Wall time of the call.
-- @column est_tokens     BIGINT   Tokens the result took in the context.
-- @column token_source   VARCHAR  `trace` or `estimate`.
-- @column context_turns  BIGINT   Later inference turns in the same context.
-- @column context_tokens BIGINT   est_tokens * context_turns.
WITH timeline AS MATERIALIZED (
    SELECT
        trace_path,
        line,
        event_type,
        input_tokens,
        output_tokens,
        output_bytes,
        duration_ms,
        -- running counts written count(CASE ...), not count(*) FILTER (...): DuckDB 2.0
        -- counts a filtered frame row by row, so a running count with a FILTER took time
        -- quadratic in the trace (a session of 148,808 events: 7.9 s for this window alone)
        count(CASE WHEN event_type IN ('compaction', 'task_start', 'session_start', 'context_switch') THEN 1 END)
            OVER (PARTITION BY trace_path ORDER BY line RANGE UNBOUNDED PRECEDING) AS context_no,
        count(CASE WHEN event_type = 'inference' THEN 1 END)
            OVER (PARTITION BY trace_path ORDER BY line RANGE UNBOUNDED PRECEDING) AS inferences_so_far,
        -- the inference that made the call (same window as above: one sort for the three);
        -- RANGE: an inference and the calls it made may share a line (other agents' logs)
        max(CASE WHEN event_type = 'inference' THEN line END)
            OVER (PARTITION BY trace_path ORDER BY line RANGE UNBOUNDED PRECEDING) AS made_by,
        -- the inferences numbered one by one (ROWS: two on one line get two numbers, in
        -- either order, as a lead over them would take them)
        count(CASE WHEN event_type = 'inference' THEN 1 END)
            OVER (PARTITION BY trace_path ORDER BY line ROWS UNBOUNDED PRECEDING) AS inference_no
    FROM events
    WHERE event_type IN (
        'inference', 'tool_call', 'compaction', 'task_start', 'session_start', 'context_switch'
    )
),
-- how many inferences each context holds up to its end (a hash aggregate, not a window)
context_ends AS (
    SELECT trace_path, context_no, max(inferences_so_far) AS inferences_at_end
    FROM timeline
    GROUP BY ALL
),
-- the inferences in line order: the next one of number n is number n + 1 (a join, not a
-- second sort)
inferences AS (
    SELECT trace_path, line, inference_no AS number, context_no, input_tokens, output_tokens
    FROM timeline
    WHERE event_type = 'inference'
),
calls AS MATERIALIZED (
    SELECT
        c.trace_path,
        c.line,
        c.output_bytes,
        c.duration_ms,
        e.inferences_at_end - c.inferences_so_far AS context_turns,
        CASE
            WHEN n.context_no = i.context_no
                AND n.input_tokens - i.input_tokens - coalesce(i.output_tokens, 0) > 0
                THEN n.input_tokens - i.input_tokens - coalesce(i.output_tokens, 0)
        END AS turn_tokens,
        c.made_by
    FROM timeline AS c
    JOIN context_ends AS e USING (trace_path, context_no)
    LEFT JOIN inferences AS i ON i.trace_path = c.trace_path AND i.line = c.made_by
    LEFT JOIN inferences AS n ON n.trace_path = i.trace_path AND n.number = i.number + 1
    WHERE c.event_type = 'tool_call'
),
-- the bytes every call of a turn returned, which share the turn's tokens
turns AS (
    SELECT trace_path, made_by, sum(coalesce(output_bytes, 0)) AS turn_bytes
    FROM calls
    GROUP BY ALL
),
shared AS (
    SELECT c.*, t.turn_bytes
    FROM calls AS c
    JOIN turns AS t ON t.trace_path = c.trace_path AND t.made_by IS NOT DISTINCT FROM c.made_by
)
SELECT
    trace_path,
    line,
    output_bytes,
    duration_ms,
    est_tokens,
    token_source,
    context_turns,
    -- saturating: counts are below 2^53 (the loader checks), their products need not be
    capped(context_turns::HUGEINT * est_tokens) AS context_tokens
FROM (
    SELECT
        *,
        CASE
            WHEN turn_tokens IS NOT NULL AND turn_bytes > 0
                THEN round(turn_tokens::DOUBLE * coalesce(output_bytes, 0) / turn_bytes)::BIGINT
            ELSE ceil(coalesce(output_bytes, 0) / 4)::BIGINT
        END AS est_tokens,
        CASE WHEN turn_tokens IS NOT NULL AND turn_bytes > 0 THEN 'trace' ELSE 'estimate' END
            AS token_source
    FROM shared
)
