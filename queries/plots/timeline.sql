-- One session's tool calls for the timeline plot: what each call did to which resource,
-- and, for a redundant read, the read it repeats (findings of the active policy).
-- @param trace_path      VARCHAR  The session's trace file.
-- @column line            BIGINT   Line of the call.
-- @column turn            BIGINT   Its turn.
-- @column tool_name       VARCHAR  Its tool.
-- @column resource        VARCHAR  Its resource (the identity the reference policy sees).
-- @column effect          VARCHAR  `read`, `mutate` or `unknown`.
-- @column status          VARCHAR  `ok` or `error`.
-- @column prior_line      BIGINT   For a redundant read, the line it repeats; else NULL.
SELECT
    c.line,
    c.turn,
    c.tool_name,
    coalesce(f.resource, c.resource) AS resource,
    CASE WHEN c.state_effect IN ('read', 'mutate') THEN c.state_effect ELSE 'unknown' END
        AS effect,
    c.status,
    f.prior_line
FROM tool_calls AS c
LEFT JOIN redundant_calls AS f USING (trace_path, line)
WHERE c.trace_path = $trace_path AND (c.resource IS NOT NULL OR f.line IS NOT NULL)
ORDER BY c.line
