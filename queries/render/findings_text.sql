-- Findings as text, in `mur trace`'s line format: one block per session.
--
-- Reads `findings`: rows of a finding schema (redundant calls of either policy, or loops)
-- with `rule` (NULL when the schema has none), `verb` (`re-reads`, `repeats`) and `apart`
-- (the file's lines say which of its sessions they belong to: events/file_sessions.sql)
-- added. A block is a session: a trace file (a Murmur trace is one, whatever ids its lines
-- name: its block is headed by its first finding's), or each session of a file `apart`
-- (each instance of an OpenHands output). It is the session id and trace path, the number
-- of findings, then one line per finding in line order:
-- `  turn T  TOOL  RESOURCE  (VERB turn P)`, with `  [RULE]` when
-- there is a rule; a missing value shows as `—`, control characters escaped
-- (functions/visible.sql); a blank line ends the block. Blocks come
-- in trace path order, then in the order of their first lines (`show` writes its few lines
-- alike: render.redundant_line).
-- Rendering is here, not in a Python loop: a fleet has hundreds of
-- thousands of findings. The caller writes the total under the blocks from their sums.
-- @column trace_path     VARCHAR  The trace file of the block.
-- @column text           VARCHAR  The block, every line ending in a newline.
-- @column findings       BIGINT   Findings in the block.
-- @column output_bytes   HUGEINT  Their output bytes.
-- @column duration_ms    HUGEINT  Their wall time.
-- @column est_tokens     HUGEINT  Their tokens (NULL without waste columns).
-- @column context_tokens HUGEINT  Tokens re-sent because of them (NULL without waste columns).
SELECT
    trace_path,
    visible(arg_min(session_id, line)) || '  ' || visible(trace_path) || chr(10)
        || 'count:      ' || count(*) || chr(10)
        || string_agg(
            '  turn ' || coalesce(turn::VARCHAR, '—')
                || '  ' || visible(tool_name)
                || '  ' || visible(nullif(resource, ''))
                || '  (' || verb || ' turn ' || coalesce(prior_turn::VARCHAR, '—') || ')'
                || coalesce('  [' || rule || ']', ''),
            chr(10) ORDER BY line
        )
        || chr(10) || chr(10) AS text,
    count(*) AS findings,
    sum(output_bytes) AS output_bytes,
    sum(duration_ms) AS duration_ms,
    sum(est_tokens) AS est_tokens,
    sum(context_tokens) AS context_tokens
FROM findings
GROUP BY trace_path, CASE WHEN apart THEN session_id END
ORDER BY trace_path, min(line)
