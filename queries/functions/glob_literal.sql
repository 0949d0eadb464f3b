-- A path as a file reader's pattern that matches that one file: `*`, `?` and `[`, which
-- DuckDB's readers take for wildcards, each escaped as a class of one character (`[*]`).
-- `ses_a*b/trace.jsonl` otherwise reads every session its pattern matches. A path holding
-- a backslash is left as it is: DuckDB takes no such path for a pattern (`a\*b` and
-- `a\b*c` read those files), and its patterns never match a name holding one. A relative
-- path that starts with `~` (a file named `~x.jsonl`, a directory named `~`) is read
-- under the directory the command runs in (the variable `cwd`, set by load.create_macros;
-- `./` when there is none): DuckDB takes a leading `~` for the home directory (`~x.jsonl`
-- read `/home/userx.jsonl`), where the shell would have expanded one already, and reads
-- `./~/x.jsonl` as `~/x.jsonl`. The directory is escaped with the path (under `w[1]`,
-- `~x.jsonl` read `w1/~x.jsonl`).
-- @param path VARCHAR  A file's path.
-- @column result VARCHAR  The pattern naming that file alone.
list_transform(
    -- the path, anchored, named once as `p`
    [CASE WHEN starts_with(path, '~') THEN coalesce(getvariable('cwd'), '.') || '/' ELSE '' END || path],
    lambda p: CASE WHEN contains(p, chr(92)) THEN p ELSE regexp_replace(p, '([*?\[])', '[\1]', 'g') END
)[1]
