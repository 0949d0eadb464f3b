-- The position in queries/functions/checked_fields.sql of the first field of a line whose
-- JSON type is wrong (queries/functions/wrong_json_type.sql), or NULL when there is none.
-- Extracts every checked field: loading asks it only of the lines `may_have_wrong_types`
-- finds.
-- @param raw VARCHAR  A line of a trace, valid JSON.
-- @column result BIGINT  1-based index into checked_fields(), NULL when every field is right.
list_position(
    list_transform(
        json_extract(raw, checked_fields()),
        lambda value, i: wrong_json_type(
            value,
            CASE
                WHEN i <= 20 THEN 'string'
                WHEN checked_fields()[i] = 'exit_code' THEN 'integer'
                ELSE 'count'
            END
        )
    ),
    true
)
