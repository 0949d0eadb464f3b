-- rule directory_invalidation: a change to a path changes its directories.
--
-- A directory listing or a search in a directory shows what lies beneath it, so a mutate of
-- `src/a.rs` invalidates an earlier read of `src` (and of `.`), and a mutate of `src`
-- invalidates earlier reads of everything under it (`src/a.rs`, `src/x/b.rs`). Only
-- (normalised) guessed paths have directories; declared ids are opaque. This view lists, for
-- every path identity, its ancestors; the detector matches a change with a read when either
-- one is an ancestor of the other.
-- @column identity  VARCHAR    A path identity.
-- @column ancestors VARCHAR[]  Its directories, nearest first, ending at `.` (or `/`); empty when the rule is off.
WITH paths AS (
    SELECT DISTINCT identity FROM context_observations WHERE is_path
)
SELECT
    identity,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'directory_invalidation') THEN
        list_filter(
            list_transform(
                range(len(string_split(identity, '/')) - 1, 0, -1),
                lambda n: array_to_string(string_split(identity, '/')[1:n], '/')
            ),
            lambda d: d <> ''
        ) || [CASE WHEN starts_with(identity, '/') THEN '/' ELSE '.' END]
    ELSE []
    END AS ancestors
FROM paths
WHERE identity NOT IN ('.', '/')
