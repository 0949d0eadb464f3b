-- Redundant calls, reference semantics (`--policy reference`, SPEC section 3).
--
-- History is kept per trace file in line order and never reset (in a file of several
-- sessions, an OpenHands output's instances, per session: `file_session`, NULL in a Murmur
-- trace, which is one). Over the tool calls that have an identity, partitioned by (trace,
-- session of the file, identity) and ordered by line, a call is
-- redundant when its effect is exactly `read` and the previous call on that identity was
-- a `read` too; that previous call is its prior. Any other effect (mutate, unknown,
-- absent) breaks the chain, so the next read is not redundant. `status` plays no part.
-- One row per redundant call; zero rows means clean.
-- @column session_id      VARCHAR  Session of the redundant call.
-- @column trace_path      VARCHAR  Trace file of the call.
-- @column line            BIGINT   Line of the redundant call.
-- @column call_id         VARCHAR  The source's id of the call (`event_id`, `tool_use` id, Codex `call_id`, OpenHands action id); NULL when none.
-- @column turn            BIGINT   Turn of the redundant call.
-- @column tool_name       VARCHAR  Tool, as written.
-- @column resource        VARCHAR  The identity read again.
-- @column resource_source VARCHAR  `declared` or `path_field`.
-- @column state_effect    VARCHAR  Always `read`.
-- @column prior_line      BIGINT   Line of the read it repeats.
-- @column prior_turn      BIGINT   Turn of the read it repeats.
-- @column output_bytes    BIGINT   Output size of the redundant call (the bytes re-read).
-- @column duration_ms     BIGINT   Wall time of the redundant call.
WITH history AS (
    SELECT
        *,
        lag(state_effect) OVER identity AS prior_effect,
        lag(line) OVER identity AS prior_line,
        lag(turn) OVER identity AS prior_turn
    FROM tool_calls
    WHERE resource IS NOT NULL
    WINDOW identity AS (PARTITION BY trace_path, file_session, resource ORDER BY line)
)
SELECT
    session_id,
    trace_path,
    line,
    call_id,
    turn,
    tool_name,
    resource,
    resource_source,
    state_effect,
    prior_line,
    prior_turn,
    output_bytes,
    duration_ms
FROM history
WHERE state_effect = 'read' AND prior_effect = 'read'
