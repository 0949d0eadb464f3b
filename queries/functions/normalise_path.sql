-- Normalises a file-system path: drops `.` and empty segments, resolves `x/..` pairs,
-- drops a trailing `/`; the empty relative path is `.`. Leading `..` segments are kept and
-- an absolute path stays absolute. `./src//x/../a.rs` -> `src/a.rs`. A path with none of
-- these (most of them) is returned as it is, without splitting it into segments.
-- @param path VARCHAR  The path to normalise.
-- @column result VARCHAR  The normalised path.
CASE
    WHEN path IS NULL THEN NULL
    WHEN NOT (
        path = '' OR ends_with(path, '/') OR contains(path, '//')
        OR contains('/' || path || '/', '/./') OR contains('/' || path || '/', '/../')
    ) THEN path
    ELSE coalesce(
        nullif(
            CASE WHEN starts_with(path, '/') THEN '/' ELSE '' END
            || array_to_string(
                list_reduce(
                    list_filter(string_split(path, '/'), lambda s: s <> '' AND s <> '.'),
                    lambda acc, s: CASE
                        WHEN s = '..' AND len(acc) > 0 AND acc[len(acc)] <> '..'
                            THEN acc[1:len(acc) - 1]
                        ELSE list_append(acc, s)
                    END,
                    []::VARCHAR[]
                ),
                '/'
            ),
            ''
        ),
        '.'
    )
END
