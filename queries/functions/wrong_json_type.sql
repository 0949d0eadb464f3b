-- Whether a field's value is present but not of the type the analyzer reads it as:
-- `count` a JSON integer from 0 to 2^53 - 1 (turns, tokens, bytes, milliseconds: the
-- integers every JSON reader holds exactly, and far beyond any real count, so that sums and
-- products of them never overflow), `integer` any JSON integer within BIGINT (exit codes),
-- `string` a JSON string. A JSON `null` is an absent field.
-- @param value JSON     The field's value, as json_extract gives it (NULL when absent).
-- @param kind  VARCHAR  `count`, `integer` or `string`.
-- @column result BOOLEAN  True when the value is there and of another type.
value IS NOT NULL AND json_type(value) <> 'NULL' AND CASE kind
    WHEN 'string' THEN json_type(value) <> 'VARCHAR'
    WHEN 'integer'
        THEN json_type(value) NOT IN ('UBIGINT', 'BIGINT') OR TRY_CAST(value AS BIGINT) IS NULL
    ELSE json_type(value) <> 'UBIGINT'
        OR coalesce(TRY_CAST(value AS BIGINT) > 9007199254740991, true)
END
