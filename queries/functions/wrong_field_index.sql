-- The position in queries/functions/checked_fields.sql of the first field of a line whose
-- JSON type is wrong (queries/functions/wrong_json_type.sql), or NULL when there is none.
-- `event_type` is checked on every line, the other fields on the events whose fields they
-- are (queries/functions/event_fields.sql). Extracts every checked field: loading asks it
-- only of the lines `may_have_wrong_types` finds. The types are read in the line
-- (`json_type` of each path), not of the values extracted: `-0` is a JSON integer written
-- as a negative one, which `json_extract` writes again as `0`.
-- @param raw VARCHAR  A line of a trace, valid JSON.
-- @column result BIGINT  1-based index into checked_fields(), NULL when every field is right.
list_position(
    list_transform(
        list_zip(
            json_extract(raw, checked_fields()),
            json_type(raw, checked_fields()),
            -- the fields of the line's event type listed once for the line, not once a
            -- field (an expression of `raw` in the comprehension ran 43 times: 25 x slower)
            list_transform(
                [event_fields(raw ->> '$.event_type')],
                lambda fields: [
                    i = 1 OR list_contains(fields, field) FOR field, i IN checked_fields()
                ]
            )[1]
        ),
        lambda value, i: value[3] AND wrong_json_type(
            value[1],
            value[2],
            CASE
                WHEN i <= 20 THEN 'string'
                WHEN checked_fields()[i] = 'exit_code' THEN 'integer'
                ELSE 'count'
            END
        )
    ),
    true
)
