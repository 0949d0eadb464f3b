-- How the complete sessions ended: sessions and share per exit status.
-- @column exit_status VARCHAR  `ok`, `failed`, `max_turns_reached`, ...
-- @column sessions    BIGINT   Sessions that ended so.
-- @column percent     DOUBLE   Their share of the complete sessions, in percent.
SELECT
    exit_status,
    count(*) AS sessions,
    100.0 * count(*) / sum(count(*)) OVER () AS percent
FROM session_metrics
WHERE complete
GROUP BY exit_status
ORDER BY exit_status
