-- Loops: the same tool called with the same input again, and retries after failures.
--
-- Calls are identical when their tool name and their input (as JSON text) are equal; a
-- call whose input the trace does not hold (an old runtime's, a span exported without
-- content capture) is identical to none: what it asked is not known. A call is reported
-- when an identical call came before it in the same trace, with nothing changed in
-- between (no change, unknown shell command or context reset of context_observations:
-- re-running the tests after an edit is not a loop), either immediately before (no other
-- tool call in between: `consecutive_repeat`) or at most `$window` turns earlier
-- (`repeat_within_window`); when that earlier call failed, it is a
-- `retry_after_failure`, and its waste is the failed attempt's (what was spent for nothing);
-- otherwise the waste is the repeated call's own. One row per finding, the finding schema
-- of the context policy.
-- @param window          BIGINT   How many turns back a repeat still counts.
-- @column session_id      VARCHAR  Session.
-- @column trace_path      VARCHAR  Trace file.
-- @column line            BIGINT   Line of the repeated call.
-- @column call_id         VARCHAR  The source's id of the call (`event_id`, `tool_use` id, Codex `call_id`, OpenHands action id); NULL when none.
-- @column turn            BIGINT   Its turn.
-- @column tool_name       VARCHAR  Its tool.
-- @column resource        VARCHAR  Its resolved resource, when it has one.
-- @column resource_source VARCHAR  `declared` or `path_field`, when it has one.
-- @column state_effect    VARCHAR  Its declared effect.
-- @column prior_line      BIGINT   Line of the identical call before it.
-- @column prior_turn      BIGINT   Turn of that call.
-- @column output_bytes    BIGINT   Bytes of the wasted call.
-- @column duration_ms     BIGINT   Wall time of the wasted call.
-- @column rule            VARCHAR  consecutive_repeat, repeat_within_window or retry_after_failure.
-- @column reason          VARCHAR  Why, in words.
-- @column est_tokens      BIGINT   Tokens of the wasted call's result.
-- @column token_source    VARCHAR  `trace` or `estimate`.
-- @column context_turns   BIGINT   Later turns that re-sent it.
-- @column context_tokens  BIGINT   est_tokens * context_turns.
WITH calls AS (
    SELECT
        *,
        row_number() OVER (PARTITION BY trace_path ORDER BY line) AS call_no,
        input::VARCHAR AS input_text
    FROM tool_calls
),
paired AS (
    SELECT
        *,
        lag(line) OVER same AS prior_line,
        lag(turn) OVER same AS prior_turn,
        lag(status) OVER same AS prior_status,
        lag(call_no) OVER same AS prior_call_no
    FROM calls
    WHERE input IS NOT NULL
    WINDOW same AS (PARTITION BY trace_path, tool_name, input_text ORDER BY line)
),
found AS (
    SELECT
        *,
        CASE
            WHEN prior_status IS DISTINCT FROM 'ok' THEN 'retry_after_failure'
            WHEN call_no = prior_call_no + 1 THEN 'consecutive_repeat'
            ELSE 'repeat_within_window'
        END AS rule
    FROM paired
    WHERE prior_line IS NOT NULL
        AND (call_no = prior_call_no + 1 OR turn - prior_turn <= $window)
),
unchanged AS (
    -- the latest change or reset before the repeat: none, or none after the prior call's
    -- own place (what the prior call itself changed is numbered after it, and counts); an
    -- ASOF join finds it, where NOT EXISTS over the trace's changes took time as the
    -- product of its repeats and its changes (1.2 s of a session of 160,000 turns)
    SELECT f.*
    FROM found AS f
    ASOF LEFT JOIN (
        SELECT trace_path, ord
        FROM context_observations
        WHERE kind IN ('mutate', 'mutate_all', 'mutate_listings', 'reset')
    ) AS o ON o.trace_path = f.trace_path AND o.ord < f.line * 1000000
    WHERE o.ord IS NULL OR o.ord <= f.prior_line * 1000000
)
SELECT
    f.session_id,
    f.trace_path,
    f.line,
    f.call_id,
    f.turn,
    f.tool_name,
    f.resource,
    f.resource_source,
    f.state_effect,
    f.prior_line,
    f.prior_turn,
    w.output_bytes,
    w.duration_ms,
    f.rule,
    CASE f.rule
        WHEN 'retry_after_failure' THEN
            'line ' || f.line || ' retries line ' || f.prior_line || ' (turn ' || f.prior_turn
            || '), which failed, with the same input'
        WHEN 'consecutive_repeat' THEN
            'line ' || f.line || ' repeats line ' || f.prior_line
            || ' right after it, with the same input'
        ELSE
            'line ' || f.line || ' repeats line ' || f.prior_line || ' of turn ' || f.prior_turn
            || ', ' || (f.turn - f.prior_turn) || ' turn(s) earlier, with the same input'
    END AS reason,
    w.est_tokens,
    w.token_source,
    w.context_turns,
    w.context_tokens
FROM unchanged AS f
JOIN call_waste AS w
    ON w.trace_path = f.trace_path
    AND w.line = CASE WHEN f.rule = 'retry_after_failure' THEN f.prior_line ELSE f.line END
ORDER BY f.trace_path, f.line
