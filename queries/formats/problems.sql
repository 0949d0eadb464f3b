-- The lines of other agents' session files that no reader can take: problems of their trace.
--
-- Every format of queries/formats/ holds one JSON object a line; a line that is not is
-- what loading reports of a Murmur trace's bad line (queries/load/lines.sql), with its
-- file and number: text that is not UTF-8 (the file's one row, at line 0), text that is
-- not JSON (a torn write when it is the last piece of a file with no newline at its end:
-- left out with a warning), and JSON that is not an object (`[1, 2]`, `42`, `null`: before,
-- each reader parsed it as an object of no field and passed over it in silence). A
-- reader's own problems (a span without its ids, otel.sql) are its own.
-- @column trace_path  VARCHAR  The session file.
-- @column line        BIGINT   The line (0: the file is not UTF-8).
-- @column problem     VARCHAR  What is wrong with the line.
-- @column torn        BOOLEAN  Not JSON and the last piece of a file with no newline at its end.
SELECT
    trace_path,
    line,
    CASE
        WHEN raw IS NULL THEN 'not valid UTF-8 text'
        WHEN NOT json_valid(raw) THEN 'not valid JSON'
        ELSE 'not a JSON object'
    END AS problem,
    raw IS NOT NULL AND final_piece AND NOT json_valid(raw) AS torn
FROM source_lines
-- an object starts with its brace (the line's white space is left out): the cheap test
-- first, the parse only for the lines that pass it
WHERE raw IS NULL OR NOT starts_with(raw, '{') OR NOT json_valid(raw)
