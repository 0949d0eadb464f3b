-- The lines of the session files of other agents' formats, numbered, for their readers.
--
-- DuckDB reads the files named by the variable `source_paths`, whose formats the variable
-- `source_files` gives (a list of {trace_path, format}), and splits them into lines as queries/load/lines.sql does: blank
-- lines take no row but keep their number; a file that is not UTF-8 gets one row at line 0.
-- Each reader of queries/formats/ parses the lines of its own format.
-- @column trace_path  VARCHAR  The session file, as given.
-- @column format      VARCHAR  Its format (`claude_code`, `codex`, `openhands`, `otel`).
-- @column line        BIGINT   1-based line number counting blank lines; 0 for a file that is not UTF-8.
-- @column raw         VARCHAR  The line's text; NULL for a file that is not UTF-8.
-- @column final_piece BOOLEAN  The last piece of a file with no newline at its end (maybe torn).
WITH asked AS (
    SELECT f.trace_path, f.format
    FROM unnest(getvariable('source_files')) AS u(f)
),
files AS (
    -- each file split once (queries/load/lines.sql)
    SELECT
        trace_path,
        format,
        text,
        pieces,
        CASE WHEN NOT ends_with(text, chr(10)) THEN len(pieces) END AS last_piece
    FROM (
        SELECT
            b.filename AS trace_path,
            a.format,
            try(decode(b.content)) AS text,
            string_split(text, chr(10)) AS pieces
        FROM read_files(getvariable('source_paths')) AS b
        JOIN asked AS a ON a.trace_path = b.filename
    )
)
SELECT trace_path, format, line, raw, coalesce(line = last_piece, false) AS final_piece
FROM (
    SELECT
        trace_path,
        format,
        last_piece,
        unnest(pieces) AS raw,
        generate_subscripts(pieces, 1) AS line
    FROM files
    WHERE text IS NOT NULL
)
WHERE CASE WHEN raw >= '!' THEN true ELSE trim(raw, ' ' || chr(9) || chr(13)) <> '' END
UNION ALL
SELECT trace_path, format, 0, NULL, false
FROM files
WHERE text IS NULL
