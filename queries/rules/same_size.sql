-- rule same_size: a change only inferred is taken back by a repeat of the same size.
--
-- Many changes in a trace are guesses: a command that may change anything (a script, an
-- unknown program), a change inferred from a shell command (`sed -i`, a formatter, a
-- stash), a change of a directory above, builds and tests. When, after such changes, the
-- same request of the same resource returns exactly as many bytes as an earlier read of it
-- in the same context did, the trace's own evidence says the guess was wrong: the read is
-- redundant. A change a tool call declared on the resource itself (an editor's write, a
-- change an effects file declares, a file a log says a call changed) is never taken back:
-- an edit that keeps a file's size is common, so only calls after the latest such change
-- count. Context resets still end everything. Example: read `src/a.py` (812 bytes),
-- `bash: python scripts/tidy.py`, read `src/a.py` (812 bytes): redundant; with an editor's
-- `write src/a.py` between the two: not.
-- Metadata (`fs_stat`) is never matched so: its size stays when the file changes.
-- The size can agree while the content differs (a script that bumps `0.3.1` to `0.3.2`, a
-- rename to a name as long): on the recorded sessions of benchmarks/, 4 such reads against
-- 78 found. SPEC section 5 asks that no guess create a false positive: this rule is the one
-- place where evidence of the trace (a byte count) outweighs that, for a measured gain in
-- recall; `--no-rule same_size` gives the policy that never trades (see the README).
-- @column trace_path VARCHAR  Trace file.
-- @column ord        BIGINT   The read (an observation of context_observations).
-- @column prior_ord  BIGINT   The latest earlier read of the same request that returned as many bytes, after the latest declared change of the resource.
WITH reads AS (
    SELECT
        o.trace_path,
        o.ord,
        o.line,
        o.identity,
        o.request,
        o.observed,
        o.metadata,
        c.output_bytes,
        max(CASE WHEN o.kind = 'mutate' AND o.origin = 'tool_call' THEN o.ord END) OVER (
            PARTITION BY o.trace_path, o.identity ORDER BY o.ord
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS last_declared_change,
        o.kind
    FROM context_observations AS o
    JOIN tool_calls AS c USING (trace_path, line)
    WHERE o.kind IN ('read', 'mutate')
        AND o.identity IS NOT NULL
        AND (SELECT enabled FROM context_rules WHERE name = 'same_size')
)
SELECT c.trace_path, c.ord, max(p.ord) AS prior_ord
FROM reads AS c
JOIN reads AS p
    ON p.trace_path = c.trace_path
    AND p.identity = c.identity
    AND p.request = c.request
    AND p.output_bytes = c.output_bytes
    AND p.ord < c.ord
    AND p.line <> c.line
    AND p.ord > coalesce(c.last_declared_change, -1)
WHERE c.kind = 'read' AND p.kind = 'read' AND c.observed AND p.observed
    -- metadata keeps its size when the file changes (a `stat` after an edit)
    AND NOT coalesce(c.metadata, false)
GROUP BY ALL
