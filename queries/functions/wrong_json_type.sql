-- Whether a field's value is present but not of the type the analyzer reads it as:
-- `count` a JSON integer from 0 to 2^53 - 1 (turns, tokens, bytes, milliseconds: the
-- integers every JSON reader holds exactly, and far beyond any real count, so that sums and
-- products of them never overflow), `integer` any JSON integer within BIGINT (exit codes),
-- `string` a JSON string. A JSON `null` is an absent field; `-0` is no integer (`mur
-- trace`'s JSON reader takes it for a float).
-- @param value   JSON     The field's value, as json_extract gives it (NULL when absent).
-- @param written VARCHAR  Its JSON type as written in the line (json_type of its path: `BIGINT` for `-0`).
-- @param kind    VARCHAR  `count`, `integer` or `string`.
-- @column result BOOLEAN  True when the value is there and of another type.
value IS NOT NULL AND written <> 'NULL' AND CASE kind
    WHEN 'string' THEN written <> 'VARCHAR'
    WHEN 'integer'
        THEN written NOT IN ('UBIGINT', 'BIGINT') OR TRY_CAST(value AS BIGINT) IS NULL
            OR written = 'BIGINT' AND value = '0'
    ELSE written <> 'UBIGINT'
        OR coalesce(TRY_CAST(value AS BIGINT) > 9007199254740991, true)
END
