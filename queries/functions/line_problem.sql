-- line_problem(raw, final_piece, parsed): what is wrong with a line of another agent's log
-- that its reader takes as no line (queries/formats/), as loading says it of a Murmur
-- trace's bad line: text that is not UTF-8 (the file's one row, at line 0); text that is
-- not JSON (a torn write when it is the last piece of a file with no newline at its end:
-- left out with a warning); JSON that is not an object (`[1, 2]`, `42`, `null`: the readers
-- parsed it as an object of no field and passed over it in silence). `parsed`: the
-- reader's parse of the line gave a value (then it is JSON, and only an object is to be
-- known, from its first character: its white space is left out); else the line is checked.
-- @param raw          VARCHAR  The line (NULL: the file is not UTF-8).
-- @param final_piece  BOOLEAN  The last piece of a file with no newline at its end.
-- @param parsed       BOOLEAN  Whether the reader's parse of the line gave a value.
-- @column result STRUCT(problem VARCHAR, torn BOOLEAN)  NULL for a line of a JSON object.
CASE
    WHEN raw IS NULL THEN {problem: 'not valid UTF-8 text', torn: false}
    WHEN NOT parsed AND NOT json_valid(raw) THEN {problem: 'not valid JSON', torn: final_piece}
    WHEN NOT starts_with(raw, '{') THEN {problem: 'not a JSON object', torn: false}
END
