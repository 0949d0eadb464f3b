-- The findings of the active policy (`redundant_calls`): the policy's finding schema
-- (queries/redundant/reference.sql or context.sql), what each call cost, and the partition
-- columns of their events (queries/export/partitions.sql).
-- @column waste_tokens         BIGINT   Tokens of the call's result (queries/context/waste.sql): the context policy's `est_tokens`, and the same for the reference policy's findings, which carry none.
-- @column waste_context_tokens BIGINT   Those tokens times the later turns that re-sent them (the context policy's `context_tokens`).
-- @column date    DATE     Day the session was created (UTC).
-- @column capsule VARCHAR  Capsule that ran the session.
SELECT f.*, p.date, p.capsule
FROM redundant_calls AS f
LEFT JOIN export_partitions AS p USING (trace_path)
