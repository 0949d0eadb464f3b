-- rule directory_invalidation: a change to a path changes its directories.
--
-- A directory listing or a search in a directory shows what lies beneath it, so a mutate of
-- `src/a.rs` invalidates an earlier read of `src` (and of `.`), and a mutate of `src`
-- invalidates earlier reads of everything under it (`src/a.rs`, `src/x/b.rs`). Only
-- (normalised) guessed paths have directories; declared ids are opaque. The detector
-- matches a change with a read when either path is among the other's ancestors listed here.
-- @column identity  VARCHAR    A path identity.
-- @column ancestors VARCHAR[]  Its directories, nearest first (context/path_ancestors.sql); empty when the rule is off.
SELECT
    identity,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'directory_invalidation')
        THEN ancestors
        ELSE []::VARCHAR[]
    END AS ancestors
FROM path_ancestors
