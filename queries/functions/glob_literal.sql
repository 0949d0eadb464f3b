-- A path as a file reader's pattern that matches that one file: `*`, `?` and `[`, which
-- DuckDB's readers take for wildcards, each escaped as a class of one character (`[*]`).
-- `ses_a*b/trace.jsonl` otherwise reads every session its pattern matches.
-- @param path VARCHAR  A file's path.
-- @column result VARCHAR  The pattern naming that file alone.
regexp_replace(path, '([*?\[])', '[\1]', 'g')
