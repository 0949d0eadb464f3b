-- The regular expression of a key of queries/functions/checked_fields.sql followed by a
-- value of the wrong JSON type, for the scan (queries/functions/may_have_wrong_types.sql):
-- an integer field (the fields after the first 20) whose value does not start with a
-- digit, goes on with a fraction or exponent, or has 16 digits or more (beyond 2^53,
-- maybe); a string field (the first 20) whose value is neither a string nor null. Made
-- from the list of fields, so that the scan and the exact check name the same ones; a
-- constant, which DuckDB folds before it compiles the expression once.
-- @column result VARCHAR  The pattern (RE2 syntax), two alternatives.
'"(?:' || array_to_string(checked_fields()[21:], '|')
    || ')"\s*:\s*(?:[^0-9\s]|[0-9]+[.eE]|[0-9]{16})|"(?:'
    || array_to_string(checked_fields()[1:20], '|') || ')"\s*:\s*(?:[^"\sn]|n[^u])'
