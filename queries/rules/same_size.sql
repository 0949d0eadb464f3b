-- rule same_size: a change only inferred is taken back by a whole read of the same size.
--
-- Many changes in a trace are guesses: a command that may change anything (a script, an
-- unknown program), a change inferred from a shell command (`sed -i`, a formatter, a
-- stash), an unplaced rename, builds and tests. When, after such changes, the same whole
-- read of a resource (the same request, by the same tool) returns exactly as many bytes as
-- an earlier one did in the same context, the trace's own evidence says the guess was
-- wrong: the read is redundant. Example: read `src/a.py` (812 bytes), `bash: python
-- scripts/tidy.py`, read `src/a.py` (812 bytes): redundant.
-- What is never taken back: a change a tool call declared, on the resource or on a path
-- above or below it or on the file it lives in (an editor's write, an effects file's
-- mutate, a file a log says a call changed: an edit that keeps a file's size is common);
-- a context reset; a change made by the call that reads. What is never compared: a part
-- of a resource, a count, a digest, a capped read (their size stays when the file changes:
-- `wc -l`, `head -c`, `sha256sum`, `git rev-parse`), metadata (`fs_stat`), and a call that
-- read several resources (its byte count is theirs together). So a second `git status`
-- after a build is not taken back: its answer is not a whole read of a file.
-- The size can agree while the content differs (a script that bumps `0.3.1` to `0.3.2`):
-- on the corpora of benchmarks/, 3 such reads of 780 found on the recorded sessions, 8 of
-- 402 on the held-out ones. SPEC section 5 asks that no guess create a false positive:
-- this rule is where evidence of the trace (a byte count) outweighs that, for a measured
-- gain in recall; `--no-rule same_size` gives the policy that never trades (see README).
-- @column trace_path VARCHAR  Trace file.
-- @column ord        BIGINT   The read (an observation of context_observations).
-- @column prior_ord  BIGINT   The latest earlier read of the same request that returned as many bytes, after the latest declared change of the resource.
WITH calls AS (
    -- calls whose byte count is one read's: a single read, and no change of its own
    SELECT trace_path, line
    FROM context_observations
    WHERE (SELECT enabled FROM context_rules WHERE name = 'same_size')
    GROUP BY ALL
    HAVING count(*) FILTER (WHERE kind = 'read') = 1
        AND count(*) FILTER (WHERE kind <> 'read') = 0
),
reads AS (
    SELECT
        o.trace_path,
        o.ord,
        o.line,
        o.identity,
        o.request,
        o.observed,
        o.metadata,
        o.whole,
        c.tool_name,
        c.output_bytes,
        max(CASE WHEN o.kind = 'mutate' AND o.origin = 'tool_call' THEN o.ord END) OVER (
            PARTITION BY o.trace_path, o.identity ORDER BY o.ord
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS last_declared_change,
        o.kind,
        k.line IS NOT NULL AS alone
    FROM context_observations AS o
    JOIN tool_calls AS c USING (trace_path, line)
    LEFT JOIN calls AS k USING (trace_path, line)
    WHERE o.kind IN ('read', 'mutate')
        AND o.identity IS NOT NULL
        AND (SELECT enabled FROM context_rules WHERE name = 'same_size')
)
SELECT c.trace_path, c.ord, max(p.ord) AS prior_ord
FROM reads AS c
JOIN reads AS p
    ON p.trace_path = c.trace_path
    AND p.identity = c.identity
    -- the same request by the same tool (a whole read asks nothing: NULL)
    AND p.request IS NOT DISTINCT FROM c.request
    AND p.tool_name IS NOT DISTINCT FROM c.tool_name
    AND p.output_bytes = c.output_bytes
    AND p.ord < c.ord
    AND p.line <> c.line
    AND p.ord > coalesce(c.last_declared_change, -1)
WHERE c.kind = 'read' AND p.kind = 'read' AND c.observed AND p.observed
    AND c.alone AND p.alone AND c.whole
    -- metadata keeps its size when the file changes (a `stat` after an edit)
    AND NOT coalesce(c.metadata, false)
GROUP BY ALL
