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
    least(sum(output_bytes), 9223372036854775807)::BIGINT AS output_bytes,
    least(sum(waste_tokens), 9223372036854775807)::BIGINT AS tokens,
    least(sum(waste_context_tokens), 9223372036854775807)::BIGINT AS context_tokens
FROM redundant_calls
GROUP BY tool_name
UNION ALL
SELECT
    'resource',
    resource,
    count(*),
    least(sum(output_bytes), 9223372036854775807)::BIGINT,
    least(sum(waste_tokens), 9223372036854775807)::BIGINT,
    least(sum(waste_context_tokens), 9223372036854775807)::BIGINT
FROM redundant_calls
GROUP BY resource
