-- rule path_normalisation: guessed paths name files, however they are spelled.
--
-- A path guessed from a call's input (never a declared `resource_id`, which stays opaque
-- and verbatim) is normalised: `.` segments and empty segments are dropped, `x/..` pairs
-- are resolved, a trailing `/` is dropped, the empty path is `.`. So `./src/a.rs`,
-- `src/./a.rs`, `src//a.rs` and `src/x/../a.rs` are one file, `src/a.rs`.
-- Leading `..` segments are kept; absolute and relative paths stay distinct, unless the
-- call's working directory is known (`cwd`, in other agents' logs): then a relative path is
-- taken in it.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the call.
-- @column identity   VARCHAR  The resource as the context policy compares it.
-- @column is_path    BOOLEAN  The identity is a (guessed) file-system path.
SELECT
    trace_path,
    line,
    CASE
        WHEN resource_source = 'path_field'
            AND (SELECT enabled FROM context_rules WHERE name = 'path_normalisation')
            THEN normalise_path(
                CASE WHEN cwd IS NOT NULL AND NOT starts_with(resource, '/')
                    THEN cwd || '/' || resource
                    ELSE resource
                END
            )
        ELSE resource
    END AS identity,
    resource_source = 'path_field' AS is_path
FROM tool_calls
WHERE resource IS NOT NULL
