-- Everything the context policy orders in time: reads, changes and resets, per trace.
--
-- Tool calls with an identity (after the rules declared_effects, path_normalisation,
-- failed_calls and same_request), the files a change to a declared resource changes
-- (declared_in_file), the files a call changed by the log's own account (`changed_paths`),
-- the effects inferred from shell commands (shell_inference; for stashes,
-- session_changes), the same changes under the other spelling of a path (absolute and
-- relative, where a trace uses both), and the
-- context resets (context_reset). `ord` orders them: a shell
-- event's effects come after the call that ran it, in command order. `line` is where a
-- finding is reported: the tool call (for shell effects, the call that ran the command).
-- @column trace_path     VARCHAR  Trace file.
-- @column ord            BIGINT   Order within the trace (event line * 1,000,000 + effect number; a reset, line * 1,000,000 - 1: before its line's calls; at * 1,000, a shell command of 1,000 effects or more ran into the next line's numbers).
-- @column line           BIGINT   Line of the tool call the observation belongs to.
-- @column kind           VARCHAR  `read`, `mutate` (a change of `identity`), `reset` (context emptied), `mutate_all` (any local resource may have changed), `mutate_listings` (what directories hold may have changed, not what files hold).
-- @column identity       VARCHAR  Resource as compared (NULL for reset / mutate_all / mutate_listings).
-- @column is_path        BOOLEAN  The identity is a file-system path.
-- @column observed       BOOLEAN  A read that saw its resource (see failed_calls).
-- @column whole          BOOLEAN  A read of the whole resource (see same_request).
-- @column request        VARCHAR  What a read asked (see same_request).
-- @column origin         VARCHAR  `tool_call`, `shell`, or the reset's event type.
-- @column effect_source  VARCHAR  `trace`, `effects_file`, `shell` or NULL.
-- @column metadata       BOOLEAN  A read of metadata, held only by the same request (see same_request).
-- @column in_file        VARCHAR  For a declared resource asked of a file and nothing else: that file (normalised).
-- @column first_line     BIGINT   First line of the file a read returned, when known (see same_request).
-- @column last_line      BIGINT   Last line it returned; NULL with first_line: to the end.
WITH gathered AS (
    SELECT
        c.trace_path,
        c.line * 1000000 AS ord,
        c.line,
        CASE WHEN e.effect = 'read' THEN 'read' ELSE 'mutate' END AS kind,
        p.identity,
        p.is_path,
        f.observed,
        r.whole,
        r.request,
        'tool_call' AS origin,
        e.effect_source,
        r.metadata,
        -- a declared resource asked of a file and nothing else (an outline of `src/a.py`) is
        -- a view of that file: a whole read of the file holds it
        CASE WHEN c.resource_source = 'declared' AND r.asks_nothing_else
            AND (SELECT enabled FROM context_rules WHERE name = 'declared_in_file')
            THEN normalise_path(c.input_path)
        END AS in_file,
        r.first_line,
        r.last_line
    FROM tool_calls AS c
    JOIN rule_path_normalisation AS p USING (trace_path, line)
    JOIN rule_declared_effects AS e USING (trace_path, line)
    JOIN rule_failed_calls AS f USING (trace_path, line)
    JOIN rule_same_request AS r USING (trace_path, line)
    -- a failed call that declared nothing did nothing a later read would see (failed_calls)
    WHERE NOT (e.effect = 'unknown' AND NOT f.observed)
    UNION ALL
    SELECT
        c.trace_path,
        c.line * 1000000 + 1,
        c.line,
        CASE WHEN d.depends_on IS NULL THEN 'mutate_all' ELSE 'mutate' END,
        d.depends_on,
        d.depends_on IS NOT NULL,
        false,
        false,
        NULL,
        'tool_call',
        e.effect_source,
        false,
        NULL,
        NULL,
        NULL
    FROM tool_calls AS c
    JOIN rule_declared_effects AS e USING (trace_path, line)
    LEFT JOIN rule_declared_in_file AS d ON d.trace_path = c.trace_path AND d.identity = c.resource
    -- a change to a declared resource, or a change that names no resource at all (a
    -- subagent's run, a code cell: the readers declare them so): placed in no file, it may
    -- have changed any
    WHERE (c.resource_source = 'declared' AND e.effect <> 'read'
            OR c.resource IS NULL AND e.effect = 'mutate')
        AND (SELECT enabled FROM context_rules WHERE name = 'declared_in_file')
    UNION ALL
    SELECT
        trace_path,
        line * 1000000 + seq,
        call_line,
        kind,
        identity,
        identity IS NOT NULL,
        observed,
        whole,
        request,
        'shell',
        'shell',
        metadata,
        NULL,
        NULL,
        NULL
    FROM rule_shell_inference
    WHERE (call_line IS NOT NULL OR kind <> 'read') AND kind <> 'mutate_changed'
    UNION ALL
    SELECT
        trace_path,
        line * 1000000 + seq,
        call_line,
        kind,
        identity,
        identity IS NOT NULL,
        true,
        false,
        NULL,
        'shell',
        'shell',
        false,
        NULL,
        NULL,
        NULL
    FROM rule_session_changes
    UNION ALL
    -- files a call changed besides its resource, where the log names them (a Codex patch's
    -- headers), taken in the call's working directory
    SELECT
        c.trace_path,
        c.line * 1000000 + u.n,
        c.line,
        'mutate',
        normalise_path(
            CASE WHEN c.cwd IS NOT NULL AND NOT starts_with(u.path, '/') THEN c.cwd || '/' || u.path
                ELSE u.path
            END
        ),
        true,
        false,
        false,
        NULL,
        'tool_call',
        'trace',
        false,
        NULL,
        NULL,
        NULL
    FROM tool_calls AS c, unnest(c.changed_paths) WITH ORDINALITY AS u(path, n)
    WHERE c.changed_paths IS NOT NULL
    UNION ALL
    -- before what else its line holds (another agent's log can put a session's start at
    -- the line of its first call, whose read the reset then emptied)
    SELECT trace_path, line * 1000000 - 1, line, 'reset', NULL, false, false, false, NULL, reason,
        NULL, false, NULL, NULL, NULL
    FROM rule_context_reset
),
-- traces that name files both ways, absolute (`/workspace/src/a.rs`, an editor's) and
-- relative (`src/a.rs`, a shell's): where it cannot tell where the relative ones start
mixed AS (
    SELECT trace_path
    FROM gathered
    WHERE is_path
    GROUP BY trace_path
    HAVING bool_or(starts_with(identity, '/')) AND bool_or(NOT starts_with(identity, '/'))
),
-- a change of one spelling changes what was read under the other, when one ends with
-- the other (invalidating more never makes a finding): the pairs of spellings, matched
-- among the distinct paths a trace changes and reads (matched among its calls, the pairs
-- grew as the square of the session: 0.5 s of a session of 160,000 turns)
spellings AS (
    SELECT DISTINCT m.trace_path, m.identity AS changed, r.identity
    FROM (
        SELECT DISTINCT trace_path, identity FROM gathered WHERE kind = 'mutate' AND is_path
    ) AS m
    JOIN mixed USING (trace_path)
    JOIN (
        SELECT DISTINCT trace_path, identity FROM gathered WHERE kind = 'read' AND is_path
    ) AS r
        ON r.trace_path = m.trace_path
        AND starts_with(r.identity, '/') <> starts_with(m.identity, '/')
        AND (
            ends_with(r.identity, '/' || m.identity) OR ends_with(m.identity, '/' || r.identity)
            -- a relative directory changed: what lies beneath it, however spelled
            OR m.identity = '.' OR contains(r.identity, '/' || m.identity || '/')
        )
    WHERE (SELECT enabled FROM context_rules WHERE name = 'path_normalisation')
),
aliases AS (
    SELECT DISTINCT
        m.trace_path, m.ord, m.line, 'mutate' AS kind, s.identity, true AS is_path, false AS observed,
        false AS whole, NULL AS request, m.origin, m.effect_source, false AS metadata,
        NULL AS in_file, NULL::BIGINT AS first_line, NULL::BIGINT AS last_line
    FROM gathered AS m
    JOIN spellings AS s ON s.trace_path = m.trace_path AND s.changed = m.identity
    WHERE m.kind = 'mutate' AND m.is_path
)
SELECT * FROM gathered
UNION ALL
SELECT * FROM aliases
