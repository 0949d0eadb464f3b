-- What redundant calls (of the active policy) wasted, by tool and by resource.
-- @column dimension     VARCHAR  `tool` or `resource`.
-- @column name          VARCHAR  The tool name or the resource.
-- @column calls         BIGINT   Redundant calls.
-- @column output_bytes  BIGINT   Their output bytes.
-- @column tokens        BIGINT   Tokens of their results (queries/context/waste.sql).
-- @column context_tokens BIGINT  Tokens re-sent because of them.
SELECT
    'tool' AS dimension,
    tool_name AS name,
    count(*) AS calls,
    capped(sum(output_bytes)) AS output_bytes,
    capped(sum(waste_tokens)) AS tokens,
    capped(sum(waste_context_tokens)) AS context_tokens
FROM redundant_calls
GROUP BY tool_name
UNION ALL
SELECT
    'resource',
    resource,
    count(*),
    capped(sum(output_bytes)),
    capped(sum(waste_tokens)),
    capped(sum(waste_context_tokens))
FROM redundant_calls
GROUP BY resource
