-- The lines of other agents' session files that no reader can read, for every format at
-- once: a file that is not UTF-8 text (its one row, at line 0), a line that is not JSON (a
-- torn one when it is the last piece of a file without a final newline). A reader of
-- queries/formats/ reads the other lines; what a line that is JSON lacks is its to say.
-- @column trace_path VARCHAR  The session file, as given.
-- @column line       BIGINT   The line (0 for the whole file).
-- @column problem    VARCHAR  What is wrong with it.
-- @column torn       BOOLEAN  Not JSON and the last piece of a file with no newline at its end.
SELECT
    trace_path,
    line,
    CASE WHEN raw IS NULL THEN 'not valid UTF-8 text' ELSE 'not valid JSON' END AS problem,
    raw IS NOT NULL AND final_piece AS torn
FROM source_lines
WHERE raw IS NULL OR NOT json_valid(raw)
