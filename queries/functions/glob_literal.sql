-- A path as a file reader's pattern that matches that one file: `*`, `?` and `[`, which
-- DuckDB's readers take for wildcards, each escaped as a class of one character (`[*]`).
-- `ses_a*b/trace.jsonl` otherwise reads every session its pattern matches. A path holding
-- a backslash is left as it is: DuckDB takes no such path for a pattern (`a\*b` and
-- `a\b*c` read those files), and its patterns never match a name holding one. A relative
-- path that starts with `~` (a file named `~x.jsonl`) is read as `./~x.jsonl`: DuckDB
-- takes a leading `~` for the home directory (`~x.jsonl` read `/home/userx.jsonl`), where
-- the shell would have expanded one already.
-- @param path VARCHAR  A file's path.
-- @column result VARCHAR  The pattern naming that file alone.
CASE WHEN starts_with(path, '~') THEN './' ELSE '' END
    || CASE WHEN contains(path, chr(92)) THEN path ELSE regexp_replace(path, '([*?\[])', '[\1]', 'g') END
