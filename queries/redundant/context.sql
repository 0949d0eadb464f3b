-- Redundant calls, context-aware (`--policy context`, SPEC section 5).
--
-- A read is redundant when the model already holds what it returns: an earlier read that
-- saw the same resource, asked for at least as much, with no change to the resource (or to
-- a directory above it or a path below it) and no context reset in between. The rules
-- (queries/rules/, table `context_rules`) decide what counts as a read, a change, a reset
-- and the same resource; with every rule off this is exactly the reference policy.
-- The prior is the latest such read. `rule` names the rule that made the match, `reason`
-- says why in words, and the waste columns say what the call cost (queries/context/waste.sql).
-- @column session_id      VARCHAR  Session of the redundant call.
-- @column trace_path      VARCHAR  Trace file.
-- @column line            BIGINT   Line of the redundant tool call.
-- @column call_id         VARCHAR  The source's id of the call (`event_id`, `tool_use` id, Codex `call_id`, OpenHands action id); NULL when none.
-- @column turn            BIGINT   Its turn.
-- @column tool_name       VARCHAR  Its tool, as written.
-- @column resource        VARCHAR  The resource read again (normalised when guessed).
-- @column resource_source VARCHAR  `declared`, `path_field` or `shell`.
-- @column state_effect    VARCHAR  Always `read`.
-- @column prior_line      BIGINT   Line of the tool call whose read it repeats.
-- @column prior_turn      BIGINT   Turn of that call.
-- @column output_bytes    BIGINT   Bytes the redundant call returned.
-- @column duration_ms     BIGINT   Its wall time.
-- @column rule            VARCHAR  What made the match: declared_in_file, same_size, shell_inference, declared_effects, path_normalisation, else read_after_read.
-- @column reason          VARCHAR  Why, in words.
-- @column est_tokens      BIGINT   Tokens the repeated result took (see waste).
-- @column token_source    VARCHAR  `trace` or `estimate`.
-- @column context_turns   BIGINT   Later inference turns that re-sent it.
-- @column context_tokens  BIGINT   est_tokens * context_turns.
WITH obs AS (
    SELECT
        *,
        -- the last context reset before each observation, all identities alike
        max(CASE WHEN kind = 'reset' THEN ord END) OVER (
            PARTITION BY trace_path ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS last_reset,
        -- the last change that may have changed any local resource (never a URL's answer)
        CASE WHEN NOT regexp_matches(coalesce(identity, ''), '^[A-Za-z][A-Za-z0-9+.-]*://')
            OR starts_with(identity, 'file://')
            THEN max(CASE WHEN kind = 'mutate_all' THEN ord END) OVER (
                PARTITION BY trace_path ORDER BY ord
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            )
        END AS last_unknown_change,
        -- the last build, test or lint run: caches and outputs appear in directories
        max(CASE WHEN kind = 'mutate_listings' THEN ord END) OVER (
            PARTITION BY trace_path ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS last_listing_change,
        -- the last change of this very identity
        max(CASE WHEN kind = 'mutate' THEN ord END) OVER (
            PARTITION BY trace_path, identity ORDER BY ord
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS last_change
    FROM context_observations
),
-- what each read depends on besides its identity: the directories above it
-- (directory_invalidation) and, for a declared resource, the files it was found in
-- (declared_in_file) with their directories
dependencies AS (
    SELECT trace_path, identity, list(DISTINCT dep) AS depends_on
    FROM (
        SELECT
            d.trace_path,
            d.identity,
            unnest([d.depends_on] || coalesce(a.ancestors, [])) AS dep
        FROM rule_declared_in_file AS d
        LEFT JOIN rule_directory_invalidation AS a ON a.identity = d.depends_on
    )
    GROUP BY ALL
),
reads AS (
    SELECT
        o.*,
        coalesce(a.ancestors, []) || coalesce(d.depends_on, []) AS ancestors
    FROM obs AS o
    LEFT JOIN rule_directory_invalidation AS a USING (identity)
    LEFT JOIN dependencies AS d USING (trace_path, identity)
    WHERE o.kind = 'read'
),
changes AS (
    SELECT
        o.trace_path, o.ord, o.identity, coalesce(a.ancestors, []) AS ancestors,
        o.origin = 'tool_call' AS declared
    FROM obs AS o
    LEFT JOIN rule_directory_invalidation AS a USING (identity)
    WHERE o.kind = 'mutate' AND o.is_path
),
-- the directories above each read and each change (unnested in the select list: a
-- lateral unnest, `FROM reads, unnest(...)`, joined each row back to its list)
read_dirs AS (
    SELECT trace_path, ord, unnest(ancestors) AS k FROM reads
),
change_dirs AS (
    SELECT trace_path, ord, declared, unnest(ancestors) AS k FROM changes
),
-- a change of a directory above the read, or of a path below it: the latest before each
-- read, as a running max over a stream per trace and key, where a read keyed by a
-- directory above it meets that directory's changes ('directory_changed'), and a read
-- keyed by its identity meets the changes of the paths below it ('path_below_changed');
-- only the rows whose key the other side has. Joined with every change before it, a read
-- of a directory met every change beneath it: a long session took time as its square
-- (4.3 s of a session of 160,000 turns)
keyed AS (
    SELECT trace_path, ord, 'directory_changed' AS stream, k, true AS read,
        NULL::BOOLEAN AS declared
    FROM read_dirs
    UNION ALL
    SELECT trace_path, ord, 'directory_changed', identity, false, declared FROM changes
    UNION ALL
    SELECT trace_path, ord, 'path_below_changed', identity, true, NULL FROM reads
    UNION ALL
    SELECT trace_path, ord, 'path_below_changed', k, false, declared FROM change_dirs
),
related_change AS (
    SELECT
        trace_path,
        ord,
        max(last_related) AS last_related,
        -- the latest a tool call declared (same_size never takes it back)
        max(last_related_declared) AS last_related_declared
    FROM (
        SELECT
            trace_path,
            ord,
            read,
            max(CASE WHEN NOT read THEN ord END) OVER before AS last_related,
            max(CASE WHEN NOT read AND declared THEN ord END) OVER before AS last_related_declared
        FROM (
            SELECT *
            FROM keyed
            -- only the keys both sides have: a read and a change
            SEMI JOIN (
                SELECT trace_path, stream, k
                FROM keyed
                GROUP BY ALL
                HAVING bool_or(read) AND bool_or(NOT read)
            ) USING (trace_path, stream, k)
        )
        WINDOW before AS (
            -- a read before any change that shares its `ord` (none does: a line's effects
            -- are numbered below the next line's), so what counts is strictly before it, as
            -- a join on `<` took it; in ROWS (a RANGE frame took twice as long)
            PARTITION BY trace_path, stream, k ORDER BY ord, read DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
    )
    WHERE read
    GROUP BY trace_path, ord
    HAVING max(last_related) IS NOT NULL
),
-- paths with other paths beneath them in the trace: directories, whose whole read (a
-- listing) does not hold what a search in them returns (see same_request)
directories AS (
    SELECT DISTINCT trace_path, identity
    FROM (
        SELECT o.trace_path, unnest(a.ancestors) AS identity
        FROM obs AS o
        JOIN path_ancestors AS a USING (identity)
    )
),
kinds AS (
    SELECT
        r.*,
        rc.last_related,
        rc.last_related_declared,
        -- a file, as far as the trace tells: a path with an extension and nothing beneath it
        r.is_path AND d.identity IS NULL
            AND regexp_matches(r.identity, '[^/.][.][A-Za-z0-9]+$') AS is_file
    FROM reads AS r
    LEFT JOIN related_change AS rc USING (trace_path, ord)
    LEFT JOIN directories AS d USING (trace_path, identity)
    WHERE r.observed
),
candidates AS (
    SELECT
        *,
        greatest(
            last_reset, last_unknown_change, last_change, last_related,
            -- a listing or search changes with what directories hold, and so does `git
            -- status` (untracked files: a build's outputs, a test's caches); the history and
            -- what git tells of tracked files (`git diff`, `ls-files`, `grep`, `blame`) do not
            CASE WHEN is_path AND NOT is_file AND identity <> '.git'
                AND NOT regexp_matches(coalesce(request, ''),
                    '^git (?:diff|ls-files|grep|blame|difftool)(?:\s|$)')
                THEN last_listing_change END
        ) AS barrier
    FROM kinds
),
matched AS (
    -- the prior is the latest matching read; its columns come along (arg_max), so that no
    -- second join to reads is needed: joined again on (trace_path, ord) next to candidates,
    -- the optimizer paired the two on trace_path alone (millions of rows)
    SELECT
        c.trace_path,
        c.ord,
        arg_max(p.line, p.ord) AS prior_line,
        arg_max(p.origin, p.ord) AS prior_origin,
        arg_max(p.effect_source, p.ord) AS prior_effect_source,
        'match' AS via
    FROM candidates AS c
    JOIN reads AS p
        ON p.trace_path = c.trace_path
        AND p.identity = c.identity
        AND p.ord < c.ord
        AND p.ord > coalesce(c.barrier, -1)
        AND p.observed
        AND (
            (SELECT enabled FROM context_rules WHERE name = 'same_request') IS NOT TRUE
            OR (p.whole AND (c.whole OR (c.is_file AND NOT c.metadata)))
            OR p.request = c.request
            -- lines within the lines an earlier read returned
            OR (p.first_line <= c.first_line
                AND (p.last_line IS NULL OR c.last_line <= p.last_line))
        )
    GROUP BY ALL
    UNION ALL
    -- a declared resource asked of a file and nothing else, after a whole read of the file
    SELECT
        c.trace_path,
        c.ord,
        arg_max(p.line, p.ord),
        arg_max(p.origin, p.ord),
        arg_max(p.effect_source, p.ord),
        'declared_in_file'
    FROM candidates AS c
    JOIN reads AS p
        ON p.trace_path = c.trace_path
        AND p.identity = c.in_file
        AND p.ord < c.ord
        AND p.ord > coalesce(c.barrier, -1)
        AND p.observed
        AND p.whole
    WHERE NOT c.metadata
    GROUP BY ALL
    UNION ALL
    -- the same request, as many bytes, after changes only inferred (same_size): a prior
    -- before the barrier, which the first match cannot reach, after the last reset
    SELECT c.trace_path, c.ord, p.line, p.origin, p.effect_source, 'same_size'
    FROM candidates AS c
    JOIN rule_same_size AS s USING (trace_path, ord)
    JOIN reads AS p ON p.trace_path = c.trace_path AND p.ord = s.prior_ord
    WHERE s.prior_ord > coalesce(c.last_reset, -1) AND s.prior_ord <= c.barrier
        AND s.prior_ord > coalesce(c.last_related_declared, -1)
),
prior AS (
    -- the latest read that holds it, however it was matched (declared_in_file first on a
    -- tie); its columns taken together: arg_max of one column passes over its NULLs, and
    -- took an older match's
    SELECT trace_path, ord, unnest(best)
    FROM (
        SELECT
            trace_path,
            ord,
            arg_max(
                {'prior_line': prior_line, 'prior_origin': prior_origin,
                 'prior_effect_source': prior_effect_source, 'via': via},
                [prior_line, CASE via WHEN 'declared_in_file' THEN 1 ELSE 0 END]
            ) AS best
        FROM matched
        GROUP BY ALL
    )
),
-- a shell call is one request: redundant only when every read it made is (what else it
-- printed is a read of nothing known: rules/shell_inference.sql); it is reported once,
-- with its latest read
shell_calls AS (
    SELECT trace_path, line, count(*) AS reads
    FROM context_observations
    WHERE origin = 'shell' AND kind = 'read'
    GROUP BY ALL
),
found AS MATERIALIZED (
    SELECT c.*, m.prior_line, m.prior_origin, m.prior_effect_source, m.via
    FROM prior AS m
    JOIN candidates AS c USING (trace_path, ord)
),
-- what was found of each call: grouped, not windows over partitions of a row or two (a
-- window costs about 10 microseconds a partition: a tenth of this query's time)
found_of_call AS (
    SELECT trace_path, line, count(*) AS found, max(ord) AS last_ord
    FROM found
    GROUP BY ALL
),
findings AS (
    SELECT f.*
    FROM found AS f
    LEFT JOIN shell_calls AS s
        ON f.origin = 'shell' AND s.trace_path = f.trace_path AND s.line = f.line
    LEFT JOIN found_of_call AS n
        ON f.origin = 'shell' AND n.trace_path = f.trace_path AND n.line = f.line
    WHERE f.origin <> 'shell' OR (n.found = s.reads AND f.ord = n.last_ord)
)
SELECT
    t.session_id,
    f.trace_path,
    f.line,
    t.call_id,
    t.turn,
    t.tool_name,
    f.identity AS resource,
    CASE WHEN f.origin = 'shell' THEN 'shell' ELSE t.resource_source END AS resource_source,
    'read' AS state_effect,
    f.prior_line,
    pt.turn AS prior_turn,
    t.output_bytes,
    t.duration_ms,
    CASE
        WHEN f.via = 'declared_in_file' THEN 'declared_in_file'
        WHEN f.via = 'same_size' THEN 'same_size'
        WHEN f.origin = 'shell' OR f.prior_origin = 'shell' THEN 'shell_inference'
        WHEN 'effects_file' IN (f.effect_source, f.prior_effect_source) THEN 'declared_effects'
        WHEN t.resource IS DISTINCT FROM pt.resource THEN 'path_normalisation'
        ELSE 'read_after_read'
    END AS rule,
    'line ' || f.line || ' reads ' || f.identity || ' again: line ' || f.prior_line
        || ' (turn ' || coalesce(pt.turn, 0) || ') read it'
        || CASE
            WHEN f.via = 'declared_in_file' THEN ', the file it was asked of, whole'
            WHEN f.via = 'same_size' THEN ' and returned as many bytes'
            WHEN t.resource IS DISTINCT FROM pt.resource AND f.origin = 'tool_call'
                AND f.prior_origin = 'tool_call'
                THEN ' as ' || pt.resource
            ELSE ''
        END
        || ', unchanged since, in the same context' AS reason,
    w.est_tokens,
    w.token_source,
    w.context_turns,
    w.context_tokens
FROM findings AS f
JOIN tool_calls AS t ON t.trace_path = f.trace_path AND t.line = f.line
-- every prior line is a tool call's (observations carry the line of the call they belong
-- to): LEFT only keeps the optimizer from joining the two tool_calls scans on trace_path
-- alone (20 million rows at 5,000 sessions, 9 s) before it looks at the lines
LEFT JOIN tool_calls AS pt ON pt.trace_path = f.trace_path AND pt.line = f.prior_line
LEFT JOIN call_waste AS w ON w.trace_path = f.trace_path AND w.line = f.line
