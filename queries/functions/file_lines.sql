-- The non-blank lines of a list of files, numbered as an editor numbers them: how every
-- reader splits its files (queries/load/lines.sql, queries/quick/lines.sql,
-- queries/formats/lines.sql).
--
-- The files are read in parallel (queries/functions/read_files.sql) and each is split at
-- newlines once; unnest and generate_subscripts in one select list walk the pieces in
-- lockstep (far faster than a lateral UNNEST ... WITH ORDINALITY). A blank line (spaces,
-- tabs and carriage returns only) takes no row but keeps its number; trimming every line
-- cost more than parsing it, so only lines that start below '!' (strings compare
-- bytewise) are trimmed. A file that is not UTF-8 keeps one row, `not_utf8`, for its
-- reader to say so: reading the files a second time for it cost a tenth of loading's CPU
-- time. Callers materialise the rows, so that what follows runs in parallel over chunks
-- of lines, not of files.
-- @param files VARCHAR[]  Paths (a constant: a variable's value).
-- @column file_index  BIGINT   Position of the file in `files`, from 0.
-- @column trace_path  VARCHAR  The file, as given.
-- @column line        BIGINT   1-based line number, counting blank lines (1 for a file that is not UTF-8).
-- @column raw         VARCHAR  The line's text; NULL for a file that is not UTF-8.
-- @column final_piece BOOLEAN  The last piece of a file with no newline at its end (maybe a torn write).
-- @column not_utf8    BOOLEAN  The file is not UTF-8 text: its only row.
SELECT
    file_index,
    trace_path,
    line,
    raw,
    coalesce(line = last_piece, false) AS final_piece,
    not_utf8
FROM (
    SELECT
        file_index,
        trace_path,
        unnest(pieces) AS raw,
        generate_subscripts(pieces, 1) AS line,
        -- with no newline at the end, the number of the last piece
        CASE WHEN NOT ends_with(text, chr(10)) THEN len(pieces) END AS last_piece,
        text IS NULL AS not_utf8
    FROM (
        SELECT
            file_index,
            filename AS trace_path,
            try(decode(content)) AS text,
            coalesce(string_split(text, chr(10)), [NULL]) AS pieces
        FROM read_files(files)
    )
)
WHERE not_utf8
    OR CASE WHEN raw >= '!' THEN true ELSE trim(raw, ' ' || chr(9) || chr(13)) <> '' END
