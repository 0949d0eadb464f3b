-- The directories above every path the context policy compares, nearest first.
--
-- Paths are the (normalised) path identities of context_observations and the files that
-- declared resources were found in (rules/declared_in_file.sql). `src/a/b.rs` has the
-- ancestors `src/a`, `src`, `.`; an absolute path ends at `/`. The roots themselves have
-- no row. Rules decide what to make of them (directory_invalidation, same_request).
-- @column identity  VARCHAR    A path.
-- @column ancestors VARCHAR[]  Its directories, nearest first.
WITH paths AS (
    SELECT identity FROM context_observations WHERE is_path
    UNION
    SELECT depends_on FROM rule_declared_in_file
)
SELECT
    identity,
    list_filter(
        list_transform(
            range(len(string_split(identity, '/')) - 1, 0, -1),
            lambda n: array_to_string(string_split(identity, '/')[1:n], '/')
        ),
        lambda d: d <> ''
    ) || [CASE WHEN starts_with(identity, '/') THEN '/' ELSE '.' END] AS ancestors
FROM paths
WHERE identity NOT IN ('.', '/')
    -- a path longer than any a file system takes names no file: no directories (their list
    -- would grow with the square of its length)
    AND strlen(identity) <= 4096
