-- Drops from the stored `lines` every row of a trace that cannot be analysed, and the bad lines.
--
-- Run after queries/load/traces.sql, which names each trace's first problem (a bad line, no
-- event, text that is not UTF-8): such a trace is left out whole and reported.
-- @column trace_path VARCHAR  (a statement: no rows)
DELETE FROM lines
WHERE problem IS NOT NULL
    -- a file not opened (no format) has no lines; the text of its name may be another's
    OR trace_path IN (
        SELECT trace_path FROM traces WHERE error_code IS NOT NULL AND format IS NOT NULL
    )
