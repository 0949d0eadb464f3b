-- capped(total): a sum of counts as a BIGINT, the largest BIGINT when it is larger. Counts
-- are below 2^53 (loading checks), their sums and products need not be. NULL stays NULL:
-- `least(sum(x), <largest>)` passes over a NULL, and gave the largest BIGINT for a sum of
-- no values (the output bytes of findings whose calls declare none).
-- @param total  HUGEINT  A sum or product of counts.
-- @column result BIGINT  total, at most 9223372036854775807; NULL when NULL.
CASE WHEN total > 9223372036854775807 THEN 9223372036854775807 ELSE total END::BIGINT
