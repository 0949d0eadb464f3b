-- Normalises a file-system path: drops `.` and empty segments, resolves `x/..` pairs,
-- drops a trailing `/`; the empty relative path is `.`. Leading `..` segments are kept and
-- an absolute path stays absolute. `./src//x/../a.rs` -> `src/a.rs`. A path with none of
-- these (most of them) is returned as it is, without splitting it into segments.
-- @param path VARCHAR  The path to normalise.
-- @column result VARCHAR  The normalised path.
CASE
    WHEN path IS NULL THEN NULL
    -- longer than any path a file system takes (4,096 bytes), it names no file: kept as it
    -- is (resolving it would cost the square of its length)
    WHEN strlen(path) > 4096 THEN path
    WHEN NOT (
        path = '' OR ends_with(path, '/') OR contains(path, '//')
        OR contains('/' || path || '/', '/./') OR contains('/' || path || '/', '/../')
    ) THEN path
    ELSE coalesce(
        nullif(
            CASE WHEN starts_with(path, '/') THEN '/' ELSE '' END
            -- the kept segments, joined: a `..` drops the last one (unless it is a `..`)
            || list_reduce(
                list_filter(string_split(path, '/'), lambda s: s <> '' AND s <> '.'),
                lambda kept, s: CASE
                    WHEN s = '..' AND kept <> '' AND kept <> '..' AND NOT ends_with(kept, '/..')
                        THEN regexp_replace(kept, '/?[^/]*$', '')
                    WHEN kept = '' THEN s
                    ELSE kept || '/' || s
                END,
                ''
            ),
            ''
        ),
        '.'
    )
END
