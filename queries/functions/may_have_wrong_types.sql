-- A cheap test: whether a line might hold a field of queries/functions/checked_fields.sql
-- whose JSON type is wrong. It is true wherever an integer field's value does not start
-- with a digit, goes on with a fraction or exponent, or has 16 digits or more (beyond 2^53,
-- maybe), wherever a string field's value is neither a string nor null, and wherever a key
-- holds an escape (`"tu\u0072n"` is the key `turn` to every JSON reader: only the exact
-- check can tell which key it is). A key is a string that follows a `{` or a `,` and has
-- a `:` after it. Inside a string every `"` but its closing one is escaped, so a `{` or
-- a `,` there is followed by no quote that opens a key: the `\": ` of
-- `awk '{print NR\": \"$0}'` in a command is no key. Loading asks `wrong_field_index`
-- only of the lines this finds (it costs about ten times the scan a byte). One scan
-- of the text, no parse. A key holds an escape only in a line that holds a backslash, so
-- the escape's branch runs on those lines only: the automaton of the other two branches
-- starts at a quote and skips to the next one, where the escape's branch (which starts at
-- a `{` or a `,`) made it step through every byte (one thread, 1,500 simulated sessions:
-- 0.30 -> 0.26 s of CPU, the lines found the same).
-- @param raw VARCHAR  A line of a trace.
-- @column result BOOLEAN  False when no field of the line can be of the wrong type.
CASE
    WHEN contains(raw, '\') THEN regexp_matches(
        raw,
        '"(?:timestamp|turn|input_tokens|output_tokens|input_bytes|output_bytes|duration_ms|exit_code|stdout_bytes|stderr_bytes|max_turns|tokens_before|tokens_after|total_turns|total_input_tokens|total_output_tokens|total_tool_calls|total_shell_calls|turns|tool_calls|shell_calls|reopen_count|reopen_number)"\s*:\s*(?:[^0-9\s]|[0-9]+[.eE]|[0-9]{16})|"(?:event_type|session_id|event_id|parent_id|task_id|decision|tool_name|origin|status|skill_name|binary|command|capsule_name|capsule_version|model|exit_status|context_id|source|hook_name|reason)"\s*:\s*(?:[^"\sn]|n[^u])|[{,]\s*"(?:[^"\\]*\\.)+[^"\\]*"\s*:'
    )
    ELSE regexp_matches(
        raw,
        '"(?:timestamp|turn|input_tokens|output_tokens|input_bytes|output_bytes|duration_ms|exit_code|stdout_bytes|stderr_bytes|max_turns|tokens_before|tokens_after|total_turns|total_input_tokens|total_output_tokens|total_tool_calls|total_shell_calls|turns|tool_calls|shell_calls|reopen_count|reopen_number)"\s*:\s*(?:[^0-9\s]|[0-9]+[.eE]|[0-9]{16})|"(?:event_type|session_id|event_id|parent_id|task_id|decision|tool_name|origin|status|skill_name|binary|command|capsule_name|capsule_version|model|exit_status|context_id|source|hook_name|reason)"\s*:\s*(?:[^"\sn]|n[^u])'
    )
END
