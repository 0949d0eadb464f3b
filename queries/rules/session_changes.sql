-- rule session_changes: a stash changes only what the session changed.
--
-- `git stash [pop|apply]` and `git reset --hard` set aside, or bring back, only what is not
-- committed. Taking what the session started from as committed, they can have changed only
-- files the session itself changed before them (by any tool, a formatter's paths included):
-- those are changed, the others are not. After a change nothing places (a script, an
-- unknown command, a declared change in no file), any file may be uncommitted: the stash
-- then may have changed anything (`mutate_all`), as it always does with the rule off. So
-- after `git stash`, a file the session only read is still what the model holds. It
-- trusts the session's start: a tree that was already dirty is where it can be wrong. A
-- stash brought back (`pop`, `apply`) with no `git stash` before it in the trace was made
-- before the session, of files it cannot tell: it may have changed anything.
-- (Formatters are not assumed to leave alone what the session did not change: on recorded
-- sessions, committed files were not always formatted.)
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the shell event.
-- @column seq        BIGINT   Order of the effect within the event.
-- @column call_line  BIGINT   Line of the tool call that ran the command.
-- @column kind       VARCHAR  `mutate` or `mutate_all`.
-- @column identity   VARCHAR  The path changed (NULL for mutate_all).
WITH runs AS (
    SELECT
        trace_path, line, seq, call_line, identity AS scope, line * 1000000 + seq AS ord,
        request = 'restore'
            AND count(*) FILTER (WHERE request = 'stash') OVER (
                PARTITION BY trace_path ORDER BY line, seq ROWS UNBOUNDED PRECEDING
            ) = 0 AS older_stash
    FROM rule_shell_inference
    WHERE kind = 'mutate_changed'
),
-- every change the trace shows before, placed (a path) or not (NULL: anything); only in
-- the traces that stash (a few)
stashing AS (
    SELECT DISTINCT trace_path FROM runs
),
changes AS (
    SELECT c.trace_path, c.line * 1000000 AS ord, CASE WHEN p.is_path THEN p.identity END AS identity
    FROM tool_calls AS c
    SEMI JOIN stashing USING (trace_path)
    JOIN rule_path_normalisation AS p USING (trace_path, line)
    JOIN rule_declared_effects AS e USING (trace_path, line)
    WHERE e.effect <> 'read'
    UNION ALL
    SELECT i.trace_path, i.line * 1000000 + i.seq, i.identity
    FROM rule_shell_inference AS i
    SEMI JOIN stashing USING (trace_path)
    WHERE i.kind IN ('mutate', 'mutate_all')
),
-- each path's first change (and the first change nothing places, its identity NULL): what
-- a stash is judged by is whether a change came before it, so the first is enough (joined
-- with every change before it, a session's stashes took time as the square of its length)
firsts AS (
    SELECT trace_path, identity, min(ord) AS ord
    FROM changes
    GROUP BY trace_path, identity
),
judged AS (
    SELECT
        r.trace_path,
        r.line,
        r.seq,
        r.call_line,
        r.scope,
        NOT coalesce((SELECT enabled FROM context_rules WHERE name = 'session_changes'), false)
            OR bool_or(r.older_stash)
            OR coalesce(bool_or(ch.ord IS NOT NULL AND ch.identity IS NULL), false) AS anything,
        list(DISTINCT ch.identity) FILTER (
            WHERE ch.identity IS NOT NULL AND (
                r.scope IS NULL OR r.scope = '.' OR ch.identity = r.scope
                OR starts_with(ch.identity, r.scope || '/')
            )
        ) AS changed
    FROM runs AS r
    LEFT JOIN firsts AS ch ON ch.trace_path = r.trace_path AND ch.ord < r.ord
    GROUP BY ALL
)
SELECT
    trace_path,
    line,
    seq,
    call_line,
    CASE WHEN identity IS NULL THEN 'mutate_all' ELSE 'mutate' END AS kind,
    identity
FROM judged, unnest(CASE WHEN anything THEN [scope] ELSE coalesce(changed, []) END) AS u(identity)
