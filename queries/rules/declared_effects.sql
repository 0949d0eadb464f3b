-- rule declared_effects: users declare the effects of tools that declare nothing.
--
-- A tool call whose `state_effect` is neither `read` nor `mutate` takes the effect the
-- user's effects file (`--effects FILE`, table `declared_effects`) gives its tool, or its
-- tool and the value of one input field (`operation = "status"`); a field rule wins over a
-- whole-tool rule. Anything still undeclared is `unknown`, which invalidates like a mutate.
-- Example: with `[fs-mcp.operation] read_text_file = "read"`, two reads of one file through
-- that tool are a redundant pair; without it, neither read is ever flagged.
-- @column trace_path      VARCHAR  Trace file.
-- @column line            BIGINT   Line of the call.
-- @column effect          VARCHAR  `read`, `mutate` or `unknown`.
-- @column effect_source   VARCHAR  `trace` (declared by the tool), `effects_file`, or NULL when unknown.
WITH configured AS (
    SELECT
        c.trace_path,
        c.line,
        arg_min(d.effect, d.field IS NULL) AS effect
    FROM tool_calls AS c
    JOIN declared_effects AS d
        ON d.tool_name = c.tool_name
        AND (
            d.field IS NULL
            OR (json_type(c.input, '$."' || d.field || '"') = 'VARCHAR'
                AND c.input ->> ('$."' || d.field || '"') = d.value)
        )
    WHERE c.state_effect IS DISTINCT FROM 'read'
        AND c.state_effect IS DISTINCT FROM 'mutate'
        AND (SELECT enabled FROM context_rules WHERE name = 'declared_effects')
    GROUP BY ALL
)
SELECT
    c.trace_path,
    c.line,
    CASE
        WHEN c.state_effect IN ('read', 'mutate') THEN c.state_effect
        ELSE coalesce(f.effect, 'unknown')
    END AS effect,
    CASE
        WHEN c.state_effect IN ('read', 'mutate') THEN 'trace'
        WHEN f.effect IS NOT NULL THEN 'effects_file'
    END AS effect_source
FROM tool_calls AS c
LEFT JOIN configured AS f USING (trace_path, line)
