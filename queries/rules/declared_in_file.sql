-- rule declared_in_file: declared resources live in files.
--
-- A declared `resource_id` is opaque (`sym:crate::Widget`), but when a call's input also
-- names a file (`{"symbol": "Widget", "path": "src/widget.rs"}`), the resource was found in
-- that file: a change to the file, or to a directory above it, invalidates reads of the
-- resource, and a change to the resource (a rename) is a change to the file. The link is
-- kept per resource within a trace, so a later call that names no file uses it too. A
-- change to a declared resource that no call placed in a file may have changed any file
-- (a rename edits every file that uses the symbol): it invalidates everything
-- (context/observations.sql); so does a declared change that names no resource at all
-- (Claude Code's `Task`, a subagent's run; OpenHands' `run_ipython`, a code cell). Example: find `sym:Widget` in `src/widget.rs`, edit
-- `src/widget.rs`, find it again: not redundant.
-- @column trace_path VARCHAR  Trace file.
-- @column identity   VARCHAR  A declared resource.
-- @column depends_on VARCHAR  A file (normalised) a call on it named.
SELECT DISTINCT trace_path, resource AS identity, normalise_path(input_path) AS depends_on
FROM tool_calls
WHERE resource_source = 'declared'
    AND input_path IS NOT NULL
    AND (SELECT enabled FROM context_rules WHERE name = 'declared_in_file')
