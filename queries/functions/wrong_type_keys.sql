-- The regular expression of a key of queries/functions/checked_fields.sql followed by a
-- value of the wrong JSON type, for the scan (queries/functions/may_have_wrong_types.sql):
-- an integer field (the fields after the first 20) whose value does not start with a
-- digit, goes on with a fraction or exponent, or has 16 digits or more (beyond 2^53,
-- maybe); a string field (the first 20) whose value is neither a string nor null.
-- Written out: made from the list of fields in SQL (`array_to_string` of its two slices)
-- at each use, binding the load's statement took 12.6 ms, written out 10.7 ms (the quick
-- reading's 8.8 -> 7.1 ms; medians of 40, alternated; docs/performance.md).
-- tests/test_hostile.py checks that it is the pattern the list makes, so that the scan and
-- the exact check name the same fields.
-- @column result VARCHAR  The pattern (RE2 syntax), two alternatives.
'"(?:timestamp|turn|input_tokens|output_tokens|input_bytes|output_bytes|duration_ms|exit_code|stdout_bytes|stderr_bytes|max_turns|tokens_before|tokens_after|total_turns|total_input_tokens|total_output_tokens|total_tool_calls|total_shell_calls|turns|tool_calls|shell_calls|reopen_count|reopen_number)"\s*:\s*(?:[^0-9\s]|[0-9]+[.eE]|[0-9]{16})'
    || '|'
    || '"(?:event_type|session_id|event_id|parent_id|task_id|decision|tool_name|origin|status|skill_name|binary|command|capsule_name|capsule_version|model|exit_status|context_id|source|hook_name|reason)"\s*:\s*(?:[^"\sn]|n[^u])'
