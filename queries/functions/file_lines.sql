-- The non-blank lines of a list of files, numbered as an editor numbers them: how every
-- reader splits its files (queries/load/lines.sql, queries/quick/lines.sql,
-- queries/formats/lines.sql).
--
-- The files are read in parallel (queries/functions/read_files.sql) and each is split at
-- newlines once; unnest and generate_subscripts in one select list walk the pieces in
-- lockstep (far faster than a lateral UNNEST ... WITH ORDINALITY). Each line is read as
-- `mur trace` reads it, without the Unicode white space around it (a form feed, a
-- no-break space); a blank line takes no row but keeps its number. Trimming every line
-- cost more than parsing it, so only lines that do not start with `{` and end with `}`
-- are trimmed. A file whose last line, with no newline after it, was cut inside a
-- character is read up to the cut, the line ending in U+FFFD (it is a torn one). A file
-- that is not UTF-8 otherwise keeps one row, `not_utf8`, for its
-- reader to say so: reading the files a second time for it cost a tenth of loading's CPU
-- time. Callers materialise the rows, so that what follows runs in parallel over chunks
-- of lines, not of files.
-- @param files VARCHAR[]  Paths (a constant: a variable's value).
-- @column file_index  BIGINT   Position of the file in `files`, from 0.
-- @column trace_path  VARCHAR  The file, as given.
-- @column line        BIGINT   1-based line number, counting blank lines (1 for a file that is not UTF-8).
-- @column raw         VARCHAR  The line's text, white space around it left out; NULL for a file that is not UTF-8.
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
        line,
        -- as `mur trace` reads a line: without the white space around it (Rust's
        -- `str::trim`, every Unicode White_Space character); a line that starts with `{`
        -- and ends with `}` has none to lose
        CASE
            WHEN starts_with(piece, '{') AND ends_with(piece, '}') THEN piece
            ELSE trim(piece, chr(9) || chr(11) || chr(12) || chr(13) || chr(32) || chr(133)
                || chr(160) || chr(5760) || chr(8192) || chr(8193) || chr(8194) || chr(8195)
                || chr(8196) || chr(8197) || chr(8198) || chr(8199) || chr(8200) || chr(8201)
                || chr(8202) || chr(8232) || chr(8233) || chr(8239) || chr(8287) || chr(12288))
        END AS raw,
        last_piece,
        not_utf8
    FROM (
    SELECT
        file_index,
        trace_path,
        unnest(pieces) AS piece,
        generate_subscripts(pieces, 1) AS line,
        last_piece,
        not_utf8
    FROM (
        SELECT
            file_index,
            filename AS trace_path,
            -- a last line cut inside a character (a write torn by a kill: a Claude Code
            -- session's `→` is three bytes) ends in the first one to three bytes of a
            -- character's sequence: the text before them, and U+FFFD for them, so that the
            -- line stays a torn one (before, the whole file was "not valid UTF-8 text")
            length(regexp_extract(
                hex(content[-3:]),
                '(?:C[2-9A-F]|D[0-9A-F]|E[0-9A-F](?:[89AB][0-9A-F])?|F[0-4](?:[89AB][0-9A-F]){0,2})$'
            )) // 2 AS cut_bytes,
            coalesce(
                try(decode(content)),
                CASE WHEN cut_bytes > 0
                    THEN try(decode(content[:-1 - cut_bytes])) || chr(65533) END
            ) AS text,
            coalesce(string_split(text, chr(10)), [NULL]) AS pieces,
            -- both computed here, before the unnest: beside it, the file's whole text went
            -- through the unnest, which copied it into each chunk of 2,048 lines it gave (a
            -- file of 75 MB took 9.7 s to split, 0.11 s so)
            -- with no newline at the end, the number of the last piece
            CASE WHEN NOT ends_with(text, chr(10)) THEN len(pieces) END AS last_piece,
            text IS NULL AS not_utf8
        FROM read_files(files)
    )
    )
)
WHERE not_utf8 OR raw <> ''
