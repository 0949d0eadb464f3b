-- Where an input key stands among the keys a tool call's path is guessed from (SPEC
-- section 3): 1 for `path`, then `file`, `file_path`, `filepath`, `filename`; NULL for any
-- other key. The key is compared lower-cased (`File_Path` is `file_path`) as `mur trace`
-- lower-cases it: Rust's to_lowercase makes `İ`, U+0130, an `i` and a combining dot, which
-- DuckDB's lower maps to `i` alone, so `FİLE` is no `file`. queries/events/tool_calls.sql
-- writes the same out, as it runs on a bare connection too.
-- @param key VARCHAR  A key of a tool call's input.
-- @column result INTEGER  1 to 5, or NULL.
list_position(
    ['path', 'file', 'file_path', 'filepath', 'filename'],
    lower(replace(key, chr(304), 'i' || chr(775)))
)
