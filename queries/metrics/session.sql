-- Per-session metrics, as `mur trace show`, `diff` and `report` compute them.
--
-- One row per trace file, whole (`whole_file`), and, for a file of several sessions
-- (queries/events/sessions.sql: `sessions_in_file`, an OpenHands output), one more row per
-- session: `report`, `check` and the plots count sessions (the view `session_metrics`: a
-- file of one session, or each session of a file of several), `show` and `diff` files (the
-- view `file_metrics`: every file whole, its sessions counted together).
-- Identity and totals come from `sessions` (last session_start / session_end; for one
-- session of several, its own). Call counts,
-- success and latencies come from the call events themselves; the success rate divides the
-- `ok` tool calls by session_end's `total_tool_calls`, as `mur trace` does (NULL when that
-- total is 0). The compaction shown is the last one. `redundant_calls` counts the findings of
-- the active policy (the view `redundant_calls`).
-- @column session_id            VARCHAR  Session id (the last session_start's).
-- @column trace_path            VARCHAR  Trace file.
-- @column created_ms            BIGINT   Creation time from the session id (Unix ms).
-- @column started_ms            BIGINT   When it began: created_ms, else (another agent's ids say no
--                                        time) its first event's timestamp; NULL when neither is known.
-- @column capsule_name          VARCHAR  From session_start.
-- @column capsule_version       VARCHAR  From session_start.
-- @column model                 VARCHAR  From session_start.
-- @column max_turns             BIGINT   From session_start.
-- @column exit_status           VARCHAR  From session_end.
-- @column duration_ms           BIGINT   From session_end.
-- @column total_turns           BIGINT   From session_end.
-- @column total_input_tokens    BIGINT   From session_end.
-- @column total_output_tokens   BIGINT   From session_end.
-- @column total_tool_calls      BIGINT   From session_end.
-- @column total_shell_calls     BIGINT   From session_end.
-- @column has_session_start     BOOLEAN  Has a session_start.
-- @column has_session_end       BOOLEAN  Has a session_end.
-- @column complete              BOOLEAN  Has both.
-- @column avg_input_per_turn    DOUBLE   input tokens / turns; NULL with no turns.
-- @column avg_output_per_turn   DOUBLE   output tokens / turns; NULL with no turns.
-- @column tool_ok               BIGINT   Tool calls with status `ok`.
-- @column tool_error            BIGINT   Tool calls with any other status.
-- @column tool_success_pct      DOUBLE   100 * tool_ok / total_tool_calls; NULL when 0 calls.
-- @column avg_tool_ms           DOUBLE   Mean tool call duration; NULL with none.
-- @column skill_ok              BIGINT   Skill calls with status `ok`.
-- @column skill_error           BIGINT   Skill calls with any other status.
-- @column skill_calls           BIGINT   skill_ok + skill_error.
-- @column skill_success_pct     DOUBLE   100 * skill_ok / skill_calls; NULL with none.
-- @column avg_skill_ms          DOUBLE   Mean skill call duration; NULL with none.
-- @column avg_shell_ms          DOUBLE   Mean shell command duration; NULL with none.
-- @column compaction_turn       BIGINT   Turn of the last compaction; NULL when none fired or it has none.
-- @column compaction_before     BIGINT   Its tokens_before (NULL when unknown).
-- @column compaction_after      BIGINT   Its tokens_after (NULL when unknown).
-- @column redundant_calls       BIGINT   Findings of the active policy.
-- @column redundant_bytes       BIGINT   Output bytes of those calls.
-- @column redundant_tokens      BIGINT   Tokens of their results (queries/context/waste.sql).
-- @column redundant_context_tokens BIGINT  Tokens re-sent because of them.
-- @column compactions           BIGINT   Compactions that fired (0: none).
-- @column sessions_in_file      BIGINT   Sessions the file holds (queries/events/sessions.sql): more than
--                                        one in an OpenHands output, whose counts here are all of theirs.
-- @column whole_file            BOOLEAN  The row counts its whole file; false: one session of a file of several.
WITH several AS (
    -- the files of several sessions: their sessions get a row each too
    SELECT trace_path FROM sessions WHERE sessions_in_file > 1
),
-- `part`: NULL for a whole file, else the session of a file of several that a row counts
calls AS (
    SELECT
        trace_path,
        CASE WHEN grouping(session_id) = 0 THEN session_id END AS part,
        count(*) FILTER (WHERE event_type = 'tool_call' AND status = 'ok') AS tool_ok,
        count(*) FILTER (WHERE event_type = 'tool_call' AND status IS DISTINCT FROM 'ok')
            AS tool_error,
        avg(duration_ms) FILTER (WHERE event_type = 'tool_call') AS avg_tool_ms,
        count(*) FILTER (WHERE event_type = 'skill_call' AND status = 'ok') AS skill_ok,
        count(*) FILTER (WHERE event_type = 'skill_call' AND status IS DISTINCT FROM 'ok')
            AS skill_error,
        avg(duration_ms) FILTER (WHERE event_type = 'skill_call') AS avg_skill_ms,
        avg(duration_ms) FILTER (WHERE event_type = 'shell') AS avg_shell_ms,
        count(*) FILTER (WHERE event_type = 'compaction') AS compactions,
        max(line) FILTER (WHERE event_type = 'compaction') AS compaction_line
    FROM events
    WHERE event_type IN ('tool_call', 'skill_call', 'shell', 'compaction')
    GROUP BY GROUPING SETS ((trace_path), (trace_path, session_id))
    HAVING grouping(session_id) = 1 OR trace_path IN (SELECT trace_path FROM several)
),
redundant AS (
    SELECT
        trace_path,
        CASE WHEN grouping(session_id) = 0 THEN session_id END AS part,
        count(*) AS redundant_calls,
        capped(sum(output_bytes)) AS redundant_bytes,
        capped(sum(waste_tokens)) AS redundant_tokens,
        capped(sum(waste_context_tokens)) AS redundant_context_tokens
    FROM redundant_calls
    GROUP BY GROUPING SETS ((trace_path), (trace_path, session_id))
    HAVING grouping(session_id) = 1 OR trace_path IN (SELECT trace_path FROM several)
),
units AS (
    SELECT *, NULL::VARCHAR AS part, true AS whole_file
    FROM sessions
    UNION ALL BY NAME
    SELECT
        p.trace_path,
        p.session_id,
        p.session_id AS part,
        created_ms(p.session_id) AS created_ms,
        p.first_ms,
        unnest(p.started),
        unnest(p.ended),
        true AS has_session_start,
        p.ended IS NOT NULL AS has_session_end,
        p.ended IS NOT NULL AS complete,
        f.sessions_in_file,
        false AS whole_file
    FROM session_parts AS p
    JOIN sessions AS f ON f.trace_path = p.trace_path
    -- a session that never started is no session of its own (its end counts in the file's)
    WHERE p.started IS NOT NULL
)
SELECT
    s.session_id,
    s.trace_path,
    s.created_ms,
    coalesce(s.created_ms, s.first_ms) AS started_ms,
    s.capsule_name,
    s.capsule_version,
    s.model,
    s.max_turns,
    s.exit_status,
    s.duration_ms,
    s.total_turns,
    s.total_input_tokens,
    s.total_output_tokens,
    s.total_tool_calls,
    s.total_shell_calls,
    s.has_session_start,
    s.has_session_end,
    s.complete,
    s.total_input_tokens / nullif(s.total_turns, 0) AS avg_input_per_turn,
    s.total_output_tokens / nullif(s.total_turns, 0) AS avg_output_per_turn,
    coalesce(c.tool_ok, 0) AS tool_ok,
    coalesce(c.tool_error, 0) AS tool_error,
    100.0 * coalesce(c.tool_ok, 0) / nullif(s.total_tool_calls, 0) AS tool_success_pct,
    c.avg_tool_ms,
    coalesce(c.skill_ok, 0) AS skill_ok,
    coalesce(c.skill_error, 0) AS skill_error,
    coalesce(c.skill_ok, 0) + coalesce(c.skill_error, 0) AS skill_calls,
    100.0 * c.skill_ok / nullif(c.skill_ok + c.skill_error, 0) AS skill_success_pct,
    c.avg_skill_ms,
    c.avg_shell_ms,
    k.turn AS compaction_turn,
    k.tokens_before AS compaction_before,
    k.tokens_after AS compaction_after,
    coalesce(r.redundant_calls, 0) AS redundant_calls,
    coalesce(r.redundant_bytes, 0) AS redundant_bytes,
    coalesce(r.redundant_tokens, 0) AS redundant_tokens,
    coalesce(r.redundant_context_tokens, 0) AS redundant_context_tokens,
    -- the columns added last, so that the others keep their places (notebooks index rows)
    coalesce(c.compactions, 0) AS compactions,
    s.sessions_in_file,
    s.whole_file
FROM units AS s
LEFT JOIN calls AS c ON c.trace_path = s.trace_path AND c.part IS NOT DISTINCT FROM s.part
LEFT JOIN events AS k
    ON k.trace_path = c.trace_path AND k.line = c.compaction_line AND k.event_type = 'compaction'
LEFT JOIN redundant AS r ON r.trace_path = s.trace_path AND r.part IS NOT DISTINCT FROM s.part
