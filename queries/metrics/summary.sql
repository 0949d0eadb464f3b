-- The whole analysis in one row, for the summary a Trace shows in a notebook.
-- @column sessions       BIGINT  Sessions analysed.
-- @column complete       BIGINT  Of which complete (session_start and session_end).
-- @column tool_calls     BIGINT  Tool calls.
-- @column redundant      BIGINT  Findings of the active policy.
-- @column resent_tokens  BIGINT  Tokens re-sent because of them.
SELECT
    count(*) AS sessions,
    count(*) FILTER (WHERE complete) AS complete,
    capped(coalesce(sum(tool_ok + tool_error), 0)) AS tool_calls,
    capped(coalesce(sum(redundant_calls), 0)) AS redundant,
    capped(coalesce(sum(redundant_context_tokens), 0)) AS resent_tokens
FROM session_metrics
