-- The files of a list, as read_blob reads them, in four parts read side by side.
--
-- read_blob reads a list of files on one thread, in chunks of 2,048 files: a batch of
-- traces was decoded and split into lines on one core. Four parts, each its own scan, are
-- read in parallel (a UNION ALL runs each side as a pipeline of its own): loading 1,700
-- traces (queries/load/lines.sql) went from 0.58 to 0.42 s, medians of 9.
-- A path is a name, never a pattern (queries/functions/glob_literal.sql), and each file
-- keeps the path as it was given: read_blob respells a pattern's match (`./a/../b*` as
-- `b*`; `~x` is read under the working directory), so a path holding `*`, `?` or `[`, or
-- starting with `~`, is taken from the list by its position (a lookup that copies the
-- list, 0.14 ms a file: only those; a join of every file with its position cost 90 MB
-- more at 5,000 files).
-- read_blob passes over an entry that names no file and numbers the others without it:
-- every path must name a file (callers check each first), or the positions after it move.
-- A file deleted after that check moves them: callers check the files again once read,
-- and read a batch that lost one again without it (load.load_tool_calls, load.load_traces).
-- @param files VARCHAR[]  Paths of files (a constant: a variable's value).
-- @column file_index BIGINT   Position of the file in `files`, from 0.
-- @column filename   VARCHAR  The path, as given in `files`.
-- @column content    BLOB     Its bytes.
WITH parts AS (
    SELECT file_index::BIGINT AS file_index, filename, content
    FROM read_blob([glob_literal(f) FOR f IN files[1:len(files) // 4]])
    UNION ALL
    SELECT len(files) // 4 + file_index::BIGINT, filename, content
    FROM read_blob([glob_literal(f) FOR f IN files[len(files) // 4 + 1:len(files) // 2]])
    UNION ALL
    SELECT len(files) // 2 + file_index::BIGINT, filename, content
    FROM read_blob([glob_literal(f) FOR f IN files[len(files) // 2 + 1:len(files) * 3 // 4]])
    UNION ALL
    SELECT len(files) * 3 // 4 + file_index::BIGINT, filename, content
    FROM read_blob([glob_literal(f) FOR f IN files[len(files) * 3 // 4 + 1:len(files)]])
)
SELECT
    file_index,
    CASE WHEN regexp_matches(filename, '[*?\[]')
            OR starts_with(filename, coalesce(getvariable('cwd'), '.') || '/~')
        THEN files[file_index + 1] ELSE filename END AS filename,
    content
FROM parts
