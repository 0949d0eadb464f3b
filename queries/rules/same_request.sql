-- rule same_request: a read repeats an earlier one only if it asked for what that one saw.
--
-- The request of a call is its input without the keys that name the path; a read is whole
-- when its request holds nothing but an operation name (`operation`, `op`, `action`), like
-- `read_file` or another tool's plain read (`cat f` is whole, `grep x f` is not). An earlier
-- read covers a later one of the same resource when both asked the same (equal requests),
-- when both are whole, or when the earlier one read a file whole: a file read whole holds
-- any part of it. A path counts as a file when its name has an extension and no other path
-- of the trace lies beneath it; a directory's whole read is a listing, which does not hold
-- a search, and an unknown path is treated as a directory. So `find_references` after
-- `find_definition` of one symbol, a search in a directory after listing it, or a read of
-- a file after a `grep` in it, are not redundant; a `grep` after reading the file is.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the call.
-- @column request    VARCHAR  The input without its path keys, as JSON text (NULL when the rule is off).
-- @column whole      BOOLEAN  The call read the whole resource (always true when the rule is off).
-- @column first_line BIGINT   First line of the file the read returned, when known (NULL when the rule is off).
-- @column last_line  BIGINT   Last line it returned; NULL with first_line: to the end.
WITH requests AS (
    SELECT
        trace_path,
        line,
        result_whole,
        first_line,
        last_line,
        CASE WHEN json_type(input) = 'OBJECT' THEN
            map_from_entries(list_filter(
                map_entries(json_transform(input, '"MAP(VARCHAR, JSON)"')),
                lambda e: lower(e.key) NOT IN ('path', 'file', 'file_path', 'filepath', 'filename')
            ))
        END AS rest
    FROM tool_calls
    WHERE resource IS NOT NULL
)
SELECT
    trace_path,
    line,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'same_request')
        THEN coalesce(to_json(rest)::VARCHAR, '{}')
    END AS request,
    NOT (SELECT enabled FROM context_rules WHERE name = 'same_request')
        OR coalesce(
            result_whole,
            rest IS NULL
            OR list_bool_and(list_transform(map_keys(rest), lambda k: k IN ('operation', 'op', 'action')))
            OR cardinality(rest) = 0
        ) AS whole,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'same_request') THEN first_line END
        AS first_line,
    last_line
FROM requests
